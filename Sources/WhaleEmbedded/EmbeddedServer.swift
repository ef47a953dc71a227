import Foundation
import Logging
import NIOConcurrencyHelpers
import WhaleProtocol
import WhaleServer

/// The embedded Whaler server of a live run: the reference server on a fresh SQLite file (so
/// every note starts at revision 0), on port 0. With an executable (the CLI passes its own) it
/// runs as a child process, `whalesim serve`, which a server-restart window kills with SIGKILL
/// and starts again on the same port and file: a real crash, the load and the server on
/// separate heaps. Without one it runs in process and a restart is a graceful stop and start.
public final class EmbeddedServer: Sendable {
    private enum Running: Sendable { case child(ChildServer), inProcess(ReferenceServer) }

    private let configuration: NIOLockedValueBox<ServerConfiguration>
    private let executable: String?
    private let running = NIOLockedValueBox<Running?>(nil)
    public let port: Int

    /// Starts it; `configure` may change the configuration before the first start (conform
    /// serves with `serve`'s default rate limit, a key it knows, or `--compatibility`).
    public static func start(
        directory: URL, fixtures: URL, faults: FaultSet, executable: String?,
        configure: (inout ServerConfiguration) -> Void = { _ in }
    ) async throws -> EmbeddedServer {
        var c = ServerConfiguration()
        c.port = 0
        c.database = directory.appendingPathComponent("whalesim-run.sqlite").path
        c.fixtures = fixtures
        c.faults = faults
        // Sign-in is not what a run measures: cost 4 keeps hundreds of logins cheap.
        c.bcryptCost = 4
        c.logLevel = .error
        c.maxMessagesPerSecond = 10_000
        c.closeTimeout = .milliseconds(300)
        // One signing key for the whole run: tokens issued before a restart stay valid after it,
        // as a deployment's configured secret would.
        // Text (64 hex digits), so a child `serve`, which reads it from its environment as text,
        // signs with the very bytes an in-process server would.
        c.jwtSecret = Data((0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined().utf8)
        configure(&c)
        let first = try await launch(c, executable: executable)
        let port: Int
        switch first {
        case .child(let child): port = URL(string: child.baseURL)?.port ?? 0
        case .inProcess(let server): port = server.port
        }
        c.port = port
        return EmbeddedServer(configuration: c, executable: executable, running: first)
    }

    private init(configuration: ServerConfiguration, executable: String?, running: Running) {
        self.configuration = NIOLockedValueBox(configuration)
        self.executable = executable
        self.running.withLockedValue { $0 = running }
        port = configuration.port
    }

    private static func launch(_ c: ServerConfiguration, executable: String?) async throws -> Running {
        guard let executable else { return .inProcess(try await ReferenceServer.start(c)) }
        // The signing key goes in the environment (only its owner can read /proc/PID/environ),
        // never on the command line (every local user can read /proc/PID/cmdline).
        var arguments = [
            "serve", "--host", c.host, "--port", "\(c.port)", "--database", c.database, "--bcrypt-cost",
            "\(c.bcryptCost)",
            "--max-messages-per-second", "\(c.maxMessagesPerSecond)", "--log-level", "error", "--stop-on-stdin-eof",
        ]
        if let fixtures = c.fixtures { arguments += ["--fixtures", fixtures.path] }
        if c.compatibility { arguments.append("--compatibility") }
        if c.maxMessageBytes != ServerConfiguration().maxMessageBytes {
            arguments += ["--max-message-bytes", "\(c.maxMessageBytes)"]
        }
        if c.slowClientQueue != ServerConfiguration().slowClientQueue {
            arguments += ["--slow-client-queue", "\(c.slowClientQueue)"]
        }
        if let log = c.backpressureLog { arguments += ["--backpressure-log", log] }
        for fault in c.faults { arguments += ["--fault", fault.rawValue] }
        if c.sqliteSynchronous != .full { arguments += ["--sqlite-synchronous", c.sqliteSynchronous.rawValue] }
        var environment: [String: String] = [:]
        // `serve` takes the variable's UTF-8 bytes as its key, so the key goes as that text. It went
        // hex-encoded before: a child then signed with other bytes than the caller held, and
        // conform's tokens signed "with the server's key" were refused for the key, not the expiry.
        if let key = c.jwtSecret {
            guard let text = String(data: key, encoding: .utf8) else {
                throw EmbeddedError("a child server's JWT key must be UTF-8 text (serve reads it from its environment)")
            }
            environment[jwtSecretVariable] = text
        }
        return .child(
            try ChildServer(arguments, executable: executable, environment: environment, timeout: .seconds(30)))
    }

    /// The variable `whalesim serve` reads its signing key from.
    public static let jwtSecretVariable = "WHALESIM_JWT_SECRET"

    public var baseURL: String { "http://127.0.0.1:\(port)" }
    public var isUp: Bool { running.withLockedValue { $0 != nil } }
    public var isChildProcess: Bool { executable != nil }

    /// Kills the server: SIGKILL for a child, a graceful stop in process.
    public func kill() async {
        let r = running.withLockedValue { r -> Running? in
            defer { r = nil }; return r
        }
        switch r {
        case .child(let child): await child.killed()
        case .inProcess(let server): await server.stop()
        case nil: break
        }
    }

    /// Starts it again on the same port and database; retries while the port is still held.
    public func restart() async throws {
        var lastError: (any Error)?
        for _ in 0..<50 {
            do {
                let r = try await Self.launch(configuration.withLockedValue { $0 }, executable: executable)
                running.withLockedValue { $0 = r }
                return
            } catch {
                lastError = error
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
        throw lastError!
    }

    /// Stops it for good (SIGTERM for a child: committed, sockets closed with 1001).
    public func stop() async {
        let r = running.withLockedValue { r -> Running? in
            defer { r = nil }; return r
        }
        switch r {
        case .child(let child): await child.stopped()
        case .inProcess(let server): await server.stop()
        case nil: break
        }
    }
}
