import NIOCore
import NIOHTTP1

/// The endpoint's four routes on one HTTP/1.1 connection: `/metrics` (text or OpenMetrics, as
/// the `Accept` header asks), `/health`, `/events` (server-sent events, one frame a second, until
/// the server stops) and `/` (the dashboard). Anything else is 404, a method other than GET 405.
///
/// Plain SwiftNIO, not a Hummingbird application: stopping a Hummingbird application in a process
/// whose Swift concurrency runs on NIO's loops (`run`, `bench`, `conform`) could wedge both loops
/// for good (the date cache's `merge` from swift-async-algorithms 1.1.4 deadlocks when its task is
/// cancelled at the wrong moment; seen once in six `bench run --listen-scraped` runs). Here a stop
/// is closing channels, with no task to cancel (docs/decisions/0049-telemetry-endpoint-on-plain-nio.md).
final class TelemetryHTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let hub: EventHub
    private let server: @Sendable () -> TelemetryServer?
    private var head: HTTPRequestHead?

    init(hub: EventHub, server: @escaping @Sendable () -> TelemetryServer?) {
        self.hub = hub
        self.server = server
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request): head = request
        case .body: break  // no route takes a body
        case .end:
            guard let request = head else { return }
            head = nil
            respond(to: request, context: context)
        }
    }

    private func respond(to request: HTTPRequestHead, context: ChannelHandlerContext) {
        guard request.method == .GET else {
            return send(.methodNotAllowed, "text/plain", "only GET\n", request, context, extra: [("Allow", "GET")])
        }
        let path = request.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? request.uri
        guard let server = server() else {
            return send(.serviceUnavailable, "text/plain", "starting\n", request, context)
        }
        switch path {
        case "/metrics":
            let format = ExpositionFormat.negotiate(accept: request.headers.first(name: "accept"))
            let body = ExpositionEncoder.encode(server.currentSnapshot(), as: format)
            send(.ok, format.contentType, body, request, context)
        case "/health":
            send(
                .ok, "application/json", "{\"status\":\"ok\",\"phase\":\"\(server.currentPhase)\"}\n", request, context)
        case "/":
            send(.ok, "text/html; charset=utf-8", DashboardPage.html, request, context)
        case "/events":
            stream(request, context)
        default:
            send(.notFound, "text/plain", "not found: \(path)\n", request, context)
        }
    }

    /// A whole response; the connection stays open when the client asked for keep-alive.
    private func send(
        _ status: HTTPResponseStatus, _ contentType: String, _ body: String, _ request: HTTPRequestHead,
        _ context: ChannelHandlerContext, extra: [(String, String)] = []
    ) {
        var headers = HTTPHeaders([("Content-Type", contentType), ("Content-Length", String(body.utf8.count))])
        headers.add(contentsOf: extra)
        if !request.isKeepAlive { headers.add(name: "Connection", value: "close") }
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: request.version, status: status, headers: headers))),
            promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: body)))), promise: nil)
        let done = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !request.isKeepAlive {
            let channel = context.channel
            done.whenComplete { _ in channel.close(promise: nil) }
        }
    }

    /// `/events`: the hub's frames for this client, each written once the one before has reached
    /// the socket, so a client that stops reading holds at most its hub buffer (the hub drops the
    /// oldest and counts it). The stream ends when the server stops or the client goes.
    private func stream(_ request: HTTPRequestHead, _ context: ChannelHandlerContext) {
        let headers = HTTPHeaders([
            ("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache"), ("Connection", "close"),
        ])
        context.writeAndFlush(
            wrapOutboundOut(.head(HTTPResponseHead(version: request.version, status: .ok, headers: headers))),
            promise: nil)
        let channel = context.channel
        let frames = hub.subscribe()
        let task = Task { await EventStreamPump.run(frames, to: channel) }
        channel.closeFuture.whenComplete { _ in task.cancel() }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}

/// Writes one `/events` client's frames to its connection, each once the one before has reached
/// the socket, and closes the connection when the frames end or a write fails.
enum EventStreamPump {
    static func run(_ frames: AsyncStream<String>, to channel: any Channel) async {
        do {
            // Tells EventSource to come back after 2 s if the connection drops.
            try await write("retry: 2000\n\n", to: channel)
            for await frame in frames { try await write(frame, to: channel) }
            try await channel.writeAndFlush(HTTPServerResponsePart.end(nil)).get()
        } catch {}
        try? await channel.close()
    }

    private static func write(_ text: String, to channel: any Channel) async throws {
        let part = HTTPServerResponsePart.body(.byteBuffer(channel.allocator.buffer(string: text)))
        try await channel.writeAndFlush(part).get()
    }
}
