import NIOCore
import NIOHTTP1

/// One HTTP/1.1 connection of the reference server: each whole request (NIO's aggregator in
/// front) goes to ``HTTPRoutes`` in a task, and its response is written back on the connection's
/// event loop. Requests on one connection are answered in order: NIO's pipelining handler holds
/// the next until this one's end is written.
final class ServerHTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOHTTPServerRequestFull
    typealias OutboundOut = HTTPServerResponsePart

    /// The largest body read; a route takes less (GraphQL 1 MB, login 64 KB) and says so. Past it, 413.
    static let maxBody = 4 * 1024 * 1024

    private let routes: HTTPRoutes
    private let inFlight: Gauge

    init(routes: HTTPRoutes, inFlight: Gauge) {
        self.routes = routes
        self.inFlight = inFlight
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let full = unwrapInboundIn(data)
        let request = ServerRequest(head: full.head, body: full.body)
        let keepAlive = full.head.isKeepAlive, version = full.head.version
        let answer = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let loop = context.eventLoop, routes = routes, inFlight = inFlight
        inFlight.increment()
        Task {
            let response = await routes.respond(to: request)
            loop.execute {
                let (handler, context) = answer.value
                handler.write(response, version: version, keepAlive: keepAlive, context: context)
                inFlight.decrement()
            }
        }
    }

    /// A request that is not HTTP: NIO's error handler has answered 400; the connection ends here.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    private func write(
        _ response: ServerResponse, version: HTTPVersion, keepAlive: Bool, context: ChannelHandlerContext
    ) {
        guard context.channel.isActive else { return }
        var headers = HTTPHeaders()
        headers.add(name: "content-type", value: response.contentType)
        headers.add(name: "content-length", value: "\(response.body.readableBytes)")
        if !keepAlive { headers.add(name: "connection", value: "close") }
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: version, status: response.status, headers: headers))),
            promise: nil)
        if response.body.readableBytes > 0 {
            context.write(wrapOutboundOut(.body(.byteBuffer(response.body))), promise: nil)
        }
        let done = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive {
            let channel = context.channel
            done.whenComplete { _ in channel.close(promise: nil) }
        }
    }
}

@available(*, unavailable)
extension ServerHTTPHandler: Sendable {}
