import Foundation
import Hummingbird
import Logging
import NIOCore
import SalesforceFake
import ServiceLifecycle

/// The fake Salesforce on real sockets: plain HTTP on one port (curl, the benchmark) and HTTPS on
/// another (simple-salesforce always builds `https://` URLs), both serving one `FakeSalesforce`.
///
/// ```swift
/// let server = try await FakeSalesforceServer.start(org: org)
/// print(server.httpURL, server.httpsURL, server.caFile.path)   // http://127.0.0.1:41234 …
/// await server.stop()
/// ```
public final class FakeSalesforceServer: Sendable {
    /// The handler behind both listeners (sessions, request log, controls such as `expireSession`).
    public let fake: FakeSalesforce
    /// `http://127.0.0.1:PORT`
    public let httpURL: String
    /// `https://127.0.0.1:PORT`
    public let httpsURL: String
    public let httpPort: Int
    public let httpsPort: Int
    /// The CA certificate (PEM) that signed the HTTPS certificate.
    public let caFile: URL
    /// The directory made for `caFile` when the caller named none: removed by `stop()`.
    private let ownedDirectory: URL?
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    private init(
        fake: FakeSalesforce, httpPort: Int, httpsPort: Int, host: String, caFile: URL, ownedDirectory: URL?,
        group: ServiceGroup, task: Task<Void, any Error>
    ) {
        self.fake = fake
        self.httpPort = httpPort
        self.httpsPort = httpsPort
        self.httpURL = "http://\(host):\(httpPort)"
        self.httpsURL = "https://\(host):\(httpsPort)"
        self.caFile = caFile
        self.ownedDirectory = ownedDirectory
        self.group = group
        self.task = task
    }

    /// Starts both listeners and returns once they are bound. Port 0 picks a free port.
    /// `caFile` nil writes the CA to a fresh temporary directory.
    public static func start(
        org: Org, config: FakeSalesforceConfig = FakeSalesforceConfig(),
        connectedApps: [ConnectedApp] = ConnectedApp.defaults,
        host: String = "127.0.0.1", httpPort: Int = 0, httpsPort: Int = 0,
        caFile: URL? = nil
    ) async throws -> FakeSalesforceServer {
        let fake = FakeSalesforce(
            org: org, config: config, connectedApps: connectedApps,
            defaultBaseURL: "https://\(host):\(httpsPort)")
        return try await start(fake: fake, host: host, httpPort: httpPort, httpsPort: httpsPort, caFile: caFile)
    }

    /// Serves an existing handler (tests that drive the same fake in-process and over sockets).
    public static func start(
        fake: FakeSalesforce, host: String = "127.0.0.1", httpPort: Int = 0,
        httpsPort: Int = 0, caFile: URL? = nil
    ) async throws -> FakeSalesforceServer {
        let certificates = try SelfSignedCertificates.generate()
        let ownedDirectory: URL? =
            caFile == nil
            ? FileManager.default.temporaryDirectory
                .appendingPathComponent(
                    "whalesim-fake-salesforce-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString.prefix(8))"
                ) : nil
        let caURL = caFile ?? ownedDirectory!.appendingPathComponent("ca.pem")
        try certificates.writeCA(to: caURL)
        let tls = try certificates.serverTLSContext()

        let httpBound = BoundAddress(), httpsBound = BoundAddress()
        let failure = BoundAddress()
        // Warnings and errors only: the CLI prints its own banner, tests stay quiet.
        var logger = Logger(label: "whalesim.fake-salesforce")
        logger.logLevel = .warning
        let httpApp = Application(
            responder: FakeSalesforceResponder(fake: fake, scheme: "http", boundAddress: httpBound),
            server: .http1(),
            configuration: ApplicationConfiguration(address: .hostname(host, port: httpPort), serverName: nil),
            onServerRunning: { channel in httpBound.set("\(host):\(channel.localAddress?.port ?? httpPort)") },
            logger: logger)
        let httpsApp = Application(
            responder: FakeSalesforceResponder(fake: fake, scheme: "https", boundAddress: httpsBound),
            server: .http1(tls: tls),
            configuration: ApplicationConfiguration(address: .hostname(host, port: httpsPort), serverName: nil),
            onServerRunning: { channel in httpsBound.set("\(host):\(channel.localAddress?.port ?? httpsPort)") },
            logger: logger)
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(services: [httpApp, httpsApp], logger: logger))
        let task = Task {
            do { try await group.run() } catch {
                // Releases the waits below when a listener cannot start (port taken...).
                failure.set("\(error)")
                httpBound.set("failed")
                httpsBound.set("failed")
                throw error
            }
        }
        _ = await httpBound.wait()
        _ = await httpsBound.wait()
        if !failure.value.isEmpty {
            await group.triggerGracefulShutdown()
            if let ownedDirectory { try? FileManager.default.removeItem(at: ownedDirectory) }
            throw FakeSalesforceServerError(message: "could not start the fake Salesforce (\(failure.value))")
        }
        let httpBoundPort = Int(httpBound.value.split(separator: ":").last ?? "") ?? httpPort
        let httpsBoundPort = Int(httpsBound.value.split(separator: ":").last ?? "") ?? httpsPort
        return FakeSalesforceServer(
            fake: fake, httpPort: httpBoundPort, httpsPort: httpsBoundPort, host: host,
            caFile: caURL, ownedDirectory: ownedDirectory, group: group, task: task)
    }

    /// Stops both listeners (graceful: requests in flight finish) and waits for them, then
    /// removes the CA's directory if this server made it (a named `caFile` is the caller's).
    public func stop() async {
        await group.triggerGracefulShutdown()
        _ = try? await task.value
        if let ownedDirectory { try? FileManager.default.removeItem(at: ownedDirectory) }
    }
}

/// The server could not start (the message says which listener and why).
public struct FakeSalesforceServerError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
