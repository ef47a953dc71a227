import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

/// The reference server's one port on plain SwiftNIO: HTTP/1.1 (``ServerHTTPHandler``) and the
/// websocket upgrade at `/socket` (``SocketFrameHandler``). Stopping closes the listener, lets the
/// requests in flight finish (for at most a grace period) and closes every connection left. No
/// task is cancelled to stop it (docs/decisions/0058-reference-server-on-plain-nio.md).
final class ServerListener: Sendable {
    private let listener: any Channel
    private let connections: OpenChannels
    private let inFlight: Gauge

    /// The port bound (useful with port 0).
    var port: Int { listener.localAddress?.port ?? -1 }

    private init(listener: any Channel, connections: OpenChannels, inFlight: Gauge) {
        self.listener = listener
        self.connections = connections
        self.inFlight = inFlight
    }

    private static let aggregatorName = "whalesim-http-aggregator"
    private static let httpName = "whalesim-http"

    static func bind(server: ReferenceServer, host: String, port: Int, backlog: Int) async throws -> ServerListener {
        let connections = OpenChannels()
        // Requests being answered: a stop lets them finish.
        let inFlight = Gauge()
        let routes = HTTPRoutes(server: server)
        let endpoint = SocketEndpoint(server: server)
        let configuration = server.configuration
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: Int32(backlog))
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                connections.add(channel)
                let http = ServerHTTPHandler(routes: routes, inFlight: inFlight)
                let aggregator = NIOHTTPServerRequestAggregator(maxContentLength: ServerHTTPHandler.maxBody)
                let upgrader = NIOWebSocketServerUpgrader(
                    maxFrameSize: max(configuration.maxMessageBytes * 4, 1 << 14), automaticErrorHandling: false,
                    shouldUpgrade: { channel, head in
                        // Past the connection limit the request goes on to the routes, which answer 503.
                        let ok =
                            head.uri.split(separator: "?", maxSplits: 1).first == "/socket"
                            && server.registry.count < configuration.maxConnections
                        return channel.eventLoop.makeSucceededFuture(ok ? HTTPHeaders() : nil)
                    },
                    upgradePipelineHandler: { channel, head in
                        let handshake = SocketEndpoint.Handshake(request: ServerRequest(head: head, body: nil))
                        return channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(
                                SocketFrameHandler(endpoint: endpoint, handshake: handshake))
                        }
                    })
                return channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    try sync.configureHTTPServerPipeline(
                        withServerUpgrade: (
                            upgraders: [upgrader],
                            completionHandler: { context in
                                // The HTTP handlers behind the upgrade are not for websocket frames.
                                context.pipeline.removeHandler(name: Self.aggregatorName, promise: nil)
                                context.pipeline.removeHandler(name: Self.httpName, promise: nil)
                            }
                        ), withErrorHandling: true)
                    try sync.addHandler(aggregator, name: Self.aggregatorName)
                    try sync.addHandler(http, name: Self.httpName)
                }
            }
            .bind(host: host, port: port).get()
        return ServerListener(listener: listener, connections: connections, inFlight: inFlight)
    }

    /// Stops accepting, waits up to `grace` for the requests in flight, then closes every connection.
    func stop(grace: Duration) async {
        try? await listener.close()
        let deadline = ContinuousClock.now + grace
        while inFlight.value > 0, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
        await connections.closeAll()
    }
}

/// The open connections of a listener, so that stopping can close them.
final class OpenChannels: Sendable {
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
