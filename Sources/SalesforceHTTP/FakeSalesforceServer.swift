import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import SalesforceFake
import WhaleTLS

/// The fake Salesforce on real sockets: plain HTTP on one port (curl, the benchmark) and HTTPS on
/// another (simple-salesforce always builds `https://` URLs), both serving one `FakeSalesforce`.
/// Plain SwiftNIO (`FakeSalesforceHTTPHandler`), not Hummingbird: stopping a Hummingbird application
/// inside `run`, whose tasks run on NIO's loops, could wedge both loops in swift-async-algorithms'
/// merge (apple/swift-async-algorithms#430; docs/decisions/0049-telemetry-endpoint-on-plain-nio.md).
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
    private let listeners: [any Channel]
    private let connections: Connections

    private init(
        fake: FakeSalesforce, httpPort: Int, httpsPort: Int, host: String, caFile: URL, ownedDirectory: URL?,
        listeners: [any Channel], connections: Connections
    ) {
        self.fake = fake
        self.httpPort = httpPort
        self.httpsPort = httpsPort
        self.httpURL = "http://\(host):\(httpPort)"
        self.httpsURL = "https://\(host):\(httpsPort)"
        self.caFile = caFile
        self.ownedDirectory = ownedDirectory
        self.listeners = listeners
        self.connections = connections
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

        let connections = Connections()
        var listeners: [any Channel] = []
        do {
            for (port, tls) in [(httpPort, nil), (httpsPort, tls)] as [(Int, TLSContext?)] {
                listeners.append(
                    try await listen(
                        fake: fake, host: host, port: port, tls: tls, connections: connections))
            }
        } catch {
            for listener in listeners { try? await listener.close() }
            if let ownedDirectory { try? FileManager.default.removeItem(at: ownedDirectory) }
            throw FakeSalesforceServerError(message: "could not start the fake Salesforce (\(error))")
        }
        return FakeSalesforceServer(
            fake: fake, httpPort: listeners[0].localAddress?.port ?? httpPort,
            httpsPort: listeners[1].localAddress?.port ?? httpsPort, host: host, caFile: caURL,
            ownedDirectory: ownedDirectory, listeners: listeners, connections: connections)
    }

    /// One listener: HTTP/1.1 (behind TLS when `tls` is given) to a ``FakeSalesforceHTTPHandler``.
    private static func listen(
        fake: FakeSalesforce, host: String, port: Int, tls: TLSContext?, connections: Connections
    ) async throws -> any Channel {
        try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { child in
                child.eventLoop.makeCompletedFuture {
                    let sync = child.pipeline.syncOperations
                    if let tls { try sync.addHandler(TLSHandler(context: tls)) }
                    try sync.configureHTTPServerPipeline(withErrorHandling: true)
                    try sync.addHandler(
                        NIOHTTPServerRequestAggregator(maxContentLength: FakeSalesforceHTTPHandler.maxBody))
                    try sync.addHandler(FakeSalesforceHTTPHandler(fake: fake, scheme: tls == nil ? "http" : "https"))
                    connections.add(child)
                }
            }
            .bind(host: host, port: port).get()
    }

    /// Stops both listeners and closes every connection, then removes the CA's directory if this
    /// server made it (a named `caFile` is the caller's). No task is cancelled to stop it.
    public func stop() async {
        for listener in listeners { try? await listener.close() }
        await connections.closeAll()
        if let ownedDirectory { try? FileManager.default.removeItem(at: ownedDirectory) }
    }
}

/// The open connections of a server's listeners, so that stopping can close them.
final class Connections: Sendable {
    private let open = NIOLockedValueBox<[ObjectIdentifier: any Channel]>([:])

    func add(_ channel: any Channel) {
        let key = ObjectIdentifier(channel)
        open.withLockedValue { $0[key] = channel }
        channel.closeFuture.whenComplete { [open] _ in _ = open.withLockedValue { $0.removeValue(forKey: key) } }
    }

    func closeAll() async {
        let all = open.withLockedValue { Array($0.values) }
        for channel in all { try? await channel.close() }
    }
}

/// The server could not start (the message says which listener and why).
public struct FakeSalesforceServerError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
