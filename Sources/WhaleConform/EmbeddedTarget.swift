import Foundation
import WhaleProtocol
import WhaleEmbedded
import WhaleServer

/// The reference server started by conform itself (no `--server`): `whalesim serve` as a child
/// process on a fresh SQLite file (in process when no executable is given, as in the tests),
/// with the rate and size limits `serve` has by default, a key the suite knows (so it can sign
/// an expired token), and a restarter that kills it with SIGKILL and starts it again on the same
/// port and file, so the durability cases run.
public final class EmbeddedTarget: Sendable {
    public let server: EmbeddedServer
    public let target: ConformTarget

    /// Starts it; `faults` are server-side catalog faults, `compatibility` the original protocol only.
    public static func start(
        directory: URL, fixtures: URL, faults: FaultSet = [], compatibility: Bool = false,
        executable: String?
    ) async throws -> EmbeddedTarget {
        // Text: a child `serve` gets the key through its environment, as text (EmbeddedServer).
        let secret = Data((0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined().utf8)
        let server = try await EmbeddedServer.start(
            directory: directory, fixtures: fixtures, faults: faults, executable: executable
        ) { c in
            c.compatibility = compatibility
            c.maxMessagesPerSecond = 500
            c.jwtSecret = secret
        }
        var target = ConformTarget(baseURL: server.baseURL, protocolVersion: compatibility ? .original : .v2)
        target.jwtSecret = secret
        target.restarter = EmbeddedRestarter(server: server)
        return EmbeddedTarget(server: server, target: target)
    }

    private init(server: EmbeddedServer, target: ConformTarget) {
        self.server = server
        self.target = target
    }

    public func stop() async { await server.stop() }
}

/// Kill (SIGKILL for a child, a stop in process) and start again on the same port and database.
struct EmbeddedRestarter: ServerRestarter {
    let server: EmbeddedServer
    func killAndRestart() async throws {
        await server.kill()
        try await server.restart()
        try await waitUntilAnswering(server.baseURL, within: .seconds(30))
    }
}
