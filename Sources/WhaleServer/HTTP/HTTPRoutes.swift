import Foundation
import NIOCore
import NIOHTTP1

/// The routes on the one port: REST login and refresh, GraphQL, health, metrics. The websocket
/// (`/socket`) is upgraded before a request gets here (``ServerListener``); an upgrade refused
/// for the connection limit, or a plain request to `/socket`, is answered here.
struct HTTPRoutes: Sendable {
    let server: ReferenceServer
    let auth: AuthRoutes
    let graphQL: GraphQLRoute

    init(server: ReferenceServer) {
        self.server = server
        auth = AuthRoutes(server: server)
        graphQL = GraphQLRoute(server: server)
    }

    func respond(to request: ServerRequest) async -> ServerResponse {
        do {
            switch (request.method, request.path) {
            case (.GET, "/health"): return health()
            case (.GET, "/metrics"):
                return ServerResponse(
                    status: .ok, contentType: "text/plain; version=0.0.4",
                    body: ByteBuffer(string: server.metrics.render()))
            case (.POST, "/api/user/login"): return try await auth.login(request)
            case (.POST, "/api/user/refresh"): return try await auth.refresh(request)
            case (.POST, "/query"), (.GET, "/query"): return try await graphQL.handle(request)
            case (.GET, "/socket"): return socketNotUpgraded(request)
            case (_, "/health"), (_, "/metrics"), (_, "/api/user/login"), (_, "/api/user/refresh"), (_, "/query"),
                (_, "/socket"):
                return .error(.methodNotAllowed, "\(request.method.rawValue) is not served at \(request.path)")
            default:
                return .error(.notFound, "no route \(request.path)")
            }
        } catch {
            // A commit that failed (the server stops, fail-stop) or a thread pool already shut down.
            return .error(.internalServerError, "\(error)")
        }
    }

    /// A `/socket` request that did not become a websocket: past the connection limit, or not an upgrade.
    private func socketNotUpgraded(_ request: ServerRequest) -> ServerResponse {
        let upgrade = request.header("upgrade")?.lowercased() == "websocket"
        if upgrade, server.registry.count >= server.configuration.maxConnections {
            server.metrics.error("tooManyConnections")
            return .error(.serviceUnavailable, "at most \(server.configuration.maxConnections) connections")
        }
        return .error(.upgradeRequired, "/socket is a websocket: send an Upgrade: websocket request")
    }

    private func health() -> ServerResponse {
        RESTEnvelope.json([
            "status": "ok", "serverId": server.serverId, "connections": server.registry.count,
            "schemaVersion": (try? server.storage.schemaVersion()) ?? -1,
            "compatibility": server.configuration.compatibility,
            "faults": server.configuration.faults.faults.map(\.rawValue),
        ])
    }
}
