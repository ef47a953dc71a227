import Foundation
import Logging
import NIOConcurrencyHelpers
import SalesforceFake
import WhaleProtocol
import WhaleServer
import WhalesimLive

/// The embedded defaults of a live run: the reference server (a fresh SQLite file per run, so
/// every note starts at revision 0) and the fake Salesforce, both in the runner's process on
/// port 0. The server can be killed and restarted on the same port and file mid-run.
final class EmbeddedServer: Sendable {
    let configuration: ServerConfiguration
    private let server: NIOLockedValueBox<ReferenceServer?>
    let port: Int

    static func start(directory: URL, fixtures: URL, faults: FaultSet) async throws -> EmbeddedServer {
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
        c.jwtSecret = Data((0..<32).map { _ in UInt8.random(in: 0...255) })
        let server = try await ReferenceServer.start(c)
        c.port = server.port
        return EmbeddedServer(configuration: c, server: server)
    }

    private init(configuration: ServerConfiguration, server: ReferenceServer) {
        self.configuration = configuration
        self.server = NIOLockedValueBox(server)
        port = server.port
    }

    var baseURL: String { "http://127.0.0.1:\(port)" }
    var isUp: Bool { server.withLockedValue { $0 != nil } }

    /// Stops the server (every socket closed, the listener gone); `restart` brings it back.
    func kill() async {
        let s = server.withLockedValue { s -> ReferenceServer? in defer { s = nil }; return s }
        await s?.stop()
    }

    /// Starts it again on the same port and database; retries while the port is still held.
    func restart() async throws {
        var lastError: (any Error)?
        for _ in 0..<50 {
            do {
                let s = try await ReferenceServer.start(configuration)
                server.withLockedValue { $0 = s }
                return
            } catch {
                lastError = error
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
        throw lastError!
    }

    func stop() async { await kill() }
}

/// The embedded fake Salesforce: the small fixture org grown to `accounts` accounts, so an
/// import pages through `nextRecordsUrl`.
enum EmbeddedSalesforce {
    static func start(fixtures: URL, accounts: Int, seed: UInt64) async throws -> FakeSalesforceServer {
        let template = fixtures.appendingPathComponent("salesforce/small")
        let org = try OrgGenerator.generate(seed: seed, accounts: accounts, templateDirectory: template)
        return try await FakeSalesforceServer.start(org: org, config: FakeSalesforceConfig(seed: seed))
    }
}
