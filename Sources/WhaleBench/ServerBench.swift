import Foundation
import WhaleEmbedded

/// `whalesim bench server`'s measurement: the reference server against a raw websocket server on
/// the same stack, each in its own process, measured in the same run so every figure is a ratio.
/// Its phases, each in its own file: docChange→ack round trips against raw echo (`+Echo`), delivered
/// remote ops in one note against raw broadcast (`+Broadcast`), memory per idle socket and capacity
/// (`+IdleSockets`), one CPU against two (`+Threads`); signing in and the ack rate in `+Acks`, the
/// figures' formats in `+Format`. Each line it prints goes to `output`, in order.
package struct ServerBench: Sendable {
    /// What to measure: the command's options, checked by the command.
    package struct Options: Sendable {
        /// Clients for the ack-rate phase (one note each).
        package var clients: Int
        /// Clients in the one note of the broadcast phase.
        package var noteClients: Int
        /// Idle sockets held for the memory and capacity phase.
        package var idleSockets: Int
        /// Seconds per measured phase.
        package var seconds: Double
        /// Runs of each rate phase (medians are reported).
        package var runs: Int
        /// Seed file the server starts from.
        package var fixtures: String
        /// A seeded user the bench signs in as, and its password.
        package var email: String, password: String
        /// Skip the one-CPU vs two-CPU comparison.
        package var skipThreads: Bool
        /// Also measure acks/s with the SQLite database on a whalesim lazyfs mount (needs FUSE).
        package var lazyfs: Bool

        package init(
            clients: Int, noteClients: Int, idleSockets: Int, seconds: Double, runs: Int, fixtures: String,
            email: String, password: String, skipThreads: Bool, lazyfs: Bool
        ) {
            self.clients = clients
            self.noteClients = noteClients
            self.idleSockets = idleSockets
            self.seconds = seconds
            self.runs = runs
            self.fixtures = fixtures
            self.email = email
            self.password = password
            self.skipThreads = skipThreads
            self.lazyfs = lazyfs
        }
    }

    /// How a ``BenchError`` begins when `--lazyfs` cannot mount (no FUSE): the command reports it
    /// as inconclusive rather than as a failure, once nothing has been measured.
    package static let lazyfsUnavailable = "--lazyfs: "

    package let options: Options
    /// Where each printed line goes (the command passes `print`).
    package let output: @Sendable (String) -> Void

    package init(_ options: Options, output: @escaping @Sendable (String) -> Void) {
        self.options = options
        self.output = output
    }

    /// `whalesim serve` as every phase starts it, before its `--database`.
    var serveArguments: [String] {
        [
            "serve", "--port", "0", "--fixtures", options.fixtures, "--bcrypt-cost", "4", "--max-messages-per-second",
            "0", "--log-level", "warning", "--max-connections", "20000",
        ]
    }

    /// Every phase asked for, in order, the databases (and a lazyfs mount's backing) in a temporary
    /// directory removed at the end.
    package func run() async throws {
        let o = options
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "whalesim-bench-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        output(
            "whalesim bench server: \(o.clients) clients, \(o.noteClients)-client note, \(o.idleSockets) idle sockets, \(o.seconds) s phases, \(o.runs) runs"
        )
        var lazyMount: LazyFSMount?
        if o.lazyfs {
            do {
                lazyMount = try LazyFSMount(
                    executable: ChildServer.selfExecutable, backing: directory.appendingPathComponent("lazy-backing"),
                    mount: directory.appendingPathComponent("lazy-mount"))
            } catch {
                throw BenchError(Self.lazyfsUnavailable + "\(error)")
            }
        }
        defer { lazyMount?.unmount() }
        try await measureEcho(in: directory, lazyMount: lazyMount)
        try await measureBroadcast()
        try await measureIdleSockets()
        if !o.skipThreads { try await measureThreads() }
    }
}
