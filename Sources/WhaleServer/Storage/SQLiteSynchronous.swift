/// SQLite's `PRAGMA synchronous` levels the reference server can run with.
public enum SQLiteSynchronous: String, CaseIterable, Sendable {
    /// No fsync at all: a commit is in the OS's page cache when it returns (survives `kill -9`,
    /// not a power loss).
    case off
    /// In WAL mode, the WAL is synced at checkpoints only: the newest commits may be lost in a power loss.
    case normal
    /// The WAL is synced at every commit: a commit is durable when it returns.
    case full

    /// What `PRAGMA synchronous` reads back for it.
    public var pragmaValue: Int {
        switch self {
        case .off: 0
        case .normal: 1
        case .full: 2
        }
    }
}
