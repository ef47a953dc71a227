import Hummingbird
import NIOCore

/// The endpoint's four routes. The server is looked up per request (it exists only once the
/// port is bound; until then a request gets 503).
enum TelemetryRoutes {
    static func router(hub: EventHub, server: @escaping @Sendable () -> TelemetryServer?) -> Router<BasicRequestContext>
    {
        let router = Router()
        router.get("/metrics") { request, _ -> Response in
            guard let server = server() else { return unavailable() }
            let format = ExpositionFormat.negotiate(accept: request.headers[.accept])
            let body = ExpositionEncoder.encode(server.currentSnapshot(), as: format)
            return Response(
                status: .ok, headers: [.contentType: format.contentType],
                body: .init(byteBuffer: ByteBuffer(string: body)))
        }
        router.get("/health") { _, _ -> Response in
            guard let server = server() else { return unavailable() }
            let phase = server.currentPhase
            return Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(string: "{\"status\":\"ok\",\"phase\":\"\(phase)\"}\n")))
        }
        router.get("/events") { _, _ -> Response in
            let frames = hub.subscribe()
            let body = ResponseBody { writer in
                // Tells EventSource to come back after 2 s if the connection drops.
                try await writer.write(ByteBuffer(string: "retry: 2000\n\n"))
                for await frame in frames { try await writer.write(ByteBuffer(string: frame)) }
                try await writer.finish(nil)
            }
            return Response(
                status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"], body: body)
        }
        router.get("/") { _, _ -> Response in
            Response(
                status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: DashboardPage.html)))
        }
        return router
    }

    private static func unavailable() -> Response {
        Response(status: .serviceUnavailable, body: .init(byteBuffer: ByteBuffer(string: "starting\n")))
    }
}

extension TelemetryServer {
    /// The phase `/health` reports.
    var currentPhase: String { currentSnapshot().status.phase }
}
