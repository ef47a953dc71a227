/// When the server's storage makes a written entry durable: the simulator's model of SQLite's
/// `synchronous` pragma, the level `whalesim serve --sqlite-synchronous` sets on the reference
/// server (scenario key `storage.synchronous`, `simulate --sqlite-synchronous`). A `power-loss`
/// keeps only what is durable; a `server-restart` (kill -9) keeps everything written, since the
/// operating system still has it.
public enum StorageSync: String, Hashable, Sendable, CaseIterable, Codable {
    /// Every commit is synced before the server acknowledges it (the reference server's default):
    /// written is durable.
    case full
    /// WAL with `synchronous = NORMAL`: a commit reaches the log without a sync; the log is
    /// synced at the next checkpoint (the reference server checkpoints every 500 ms).
    case normal
    /// Nothing is ever synced by the server: the operating system writes dirty pages back on its
    /// own, 30 s after they were written (Linux's `dirty_expire_centisecs`).
    case off

    /// Ticks (milliseconds of a live run) between the reference server's WAL checkpoints.
    public static let checkpointTicks = 500
    /// Ticks until the operating system writes back a page nothing synced.
    public static let writebackTicks = 30_000

    /// The tick at which an entry written at `now` is durable with no fault (nil: at once).
    public func durableAt(writtenAt now: Int) -> Int? {
        switch self {
        case .full: nil
        case .normal: (now / Self.checkpointTicks + 1) * Self.checkpointTicks
        case .off: now + Self.writebackTicks
        }
    }
}
