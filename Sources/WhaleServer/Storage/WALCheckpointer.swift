import Foundation

/// Keeps SQLite's write-ahead log short without putting a checkpoint inside a commit. With the
/// default auto-checkpoint, every thousandth page the committing transaction itself copies the
/// log into the database and fsyncs it, and every op waiting for that commit waits for the copy
/// too: the slowest commits, and so op→ack's p99 (docs/decisions/0016-server-write-path.md). The writer's connection
/// runs with `wal_autocheckpoint = 0` and this thread, on a connection of its own, runs a
/// passive checkpoint every `interval`, which never blocks the writer.
final class WALCheckpointer: Sendable {
    private let path: String
    private let interval: TimeInterval
    /// The writer's level: at FULL or NORMAL a checkpoint syncs the log and the database; at OFF
    /// it must not, or `--sqlite-synchronous off` would be durable every interval after all.
    private let synchronous: SQLiteSynchronous
    private let stopped = NSCondition()
    private nonisolated(unsafe) var isStopped = false

    init(path: String, interval: TimeInterval = 0.5, synchronous: SQLiteSynchronous = .full) {
        self.path = path
        self.synchronous = synchronous
        self.interval = interval
        let thread = Thread { [self] in self.run() }
        thread.name = "whalesim-wal-checkpoint"
        thread.start()
    }

    /// Ends the thread after its current checkpoint (the log's tail is checkpointed on close).
    func stop() {
        stopped.lock()
        isStopped = true
        stopped.signal()
        stopped.unlock()
    }

    private func run() {
        var connection: SQLiteConnection?
        while true {
            stopped.lock()
            if !isStopped { _ = stopped.wait(until: Date(timeIntervalSinceNow: interval)) }
            let stop = isStopped
            stopped.unlock()
            if stop { return }
            // A passive checkpoint copies what it can without waiting for readers or the writer;
            // what it cannot copy now waits for the next turn. A failure here loses nothing (the
            // log still holds every commit), so it is not an error worth stopping the server for.
            if connection == nil { connection = try? Self.open(path, synchronous: synchronous) }
            try? connection?.checkpointPassive()
        }
    }

    /// This thread's own connection, at the writer's level. It waits up to a second for a lock (never
    /// making the writer wait for it).
    private static func open(_ path: String, synchronous: SQLiteSynchronous) throws -> SQLiteConnection {
        let connection = try SQLiteConnection(path: path, busyTimeoutMilliseconds: 1_000)
        try connection.execute("PRAGMA synchronous = \(synchronous.rawValue.uppercased())")
        return connection
    }
}
