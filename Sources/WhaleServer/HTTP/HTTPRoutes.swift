import Foundation
import Hummingbird
import HummingbirdWebSocket
import NIOCore
import NIOPosix

/// The routes on the one port: REST login and refresh, GraphQL, health, metrics, the websocket.
struct HTTPRoutes: Sendable {
    typealias Context = BasicWebSocketRequestContext
    let server: ReferenceServer

    func makeRouter() -> Router<Context> {
        let router = Router(context: Context.self)
        router.get("/health") { _, _ in health() }
        router.get("/metrics") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                body: .init(byteBuffer: ByteBuffer(string: server.metrics.render())))
        }
        let auth = AuthRoutes(server: server)
        router.post("/api/user/login") { request, context in try await auth.login(request, context) }
        router.post("/api/user/refresh") { request, context in try await auth.refresh(request, context) }
        let graphQL = GraphQLRoute(server: server)
        router.post("/query") { request, context in try await graphQL.handle(request, context) }
        router.get("/query") { request, context in try await graphQL.handle(request, context) }
        return router
    }

    /// The upgrade router: `/socket` only, refusing upgrades past the connection limit.
    func makeSocketRouter() -> Router<SocketRequestContext> {
        let router = Router(context: SocketRequestContext.self)
        let endpoint = SocketEndpoint(server: server)
        router.ws("/socket") { _, _ in
            guard server.registry.count < server.configuration.maxConnections else {
                server.metrics.error("tooManyConnections")
                throw HTTPError(
                    .serviceUnavailable, message: "at most \(server.configuration.maxConnections) connections")
            }
            return .upgrade([:])
        } onUpgrade: { inbound, outbound, context in
            await endpoint.serve(
                inbound: inbound, outbound: outbound, channel: context.requestContext.channel,
                handshake: .init(request: context.request))
        }
        return router
    }

    private func health() -> Response {
        RESTEnvelope.json([
            "status": "ok", "serverId": server.serverId, "connections": server.registry.count,
            "schemaVersion": (try? server.storage.schemaVersion()) ?? -1,
            "compatibility": server.configuration.compatibility,
            "faults": server.configuration.faults.faults.map(\.rawValue),
        ])
    }
}

/// Reads a request body, at most `limit` bytes.
func readBody(_ request: Request, limit: Int = 1 << 20) async throws -> Data {
    var request = request
    let buffer = try await request.collectBody(upTo: limit)
    return Data(buffer: buffer)
}

/// The websocket route's request context: hummingbird's, plus the connection's channel, which
/// the server writes frames into directly (``FrameBatch``).
struct SocketRequestContext: RequestContext, WebSocketRequestContext {
    var coreContext: CoreRequestContextStorage
    let webSocket: WebSocketHandlerReference<Self>
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        webSocket = .init()
        channel = source.channel
    }
}
