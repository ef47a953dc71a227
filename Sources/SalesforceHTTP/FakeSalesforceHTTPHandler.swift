import NIOCore
import NIOHTTP1
import SalesforceFake

/// One HTTP/1.1 connection of the fake Salesforce: each whole request (NIO's aggregator in front)
/// goes to the sans-I/O `FakeSalesforce`, and its response comes back after the latency the fake's
/// configuration injected, slept on the connection's event loop. Requests on one connection are
/// answered in order (NIO's pipelining handler holds the next until this one's end is written).
final class FakeSalesforceHTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOHTTPServerRequestFull
    typealias OutboundOut = HTTPServerResponsePart

    /// Largest body accepted (composite bodies are small; records too); past it, 413.
    static let maxBody = 16 * 1024 * 1024

    let fake: FakeSalesforce
    /// `http` or `https`: the scheme clients reached this listener with.
    let scheme: String

    init(fake: FakeSalesforce, scheme: String) {
        self.fake = fake
        self.scheme = scheme
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let request = unwrapInboundIn(data)
        let head = request.head
        // The base URL the fake writes into links: the Host the client used, else the listener's address.
        let host =
            head.headers.first(name: "host")
            ?? context.channel.localAddress.map { "\($0.ipAddress ?? "127.0.0.1"):\($0.port ?? 0)" } ?? "127.0.0.1"
        var sfRequest = SFRequest(
            method: head.method.rawValue, target: head.uri,
            headers: head.headers.map { (name: $0.name, value: $0.value) },
            body: request.body.map { Array(buffer: $0) } ?? [])
        sfRequest.baseURL = "\(scheme)://\(host)"
        let response = fake.handle(sfRequest)
        let keepAlive = head.isKeepAlive
        let answer = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let send = {
            let (handler, context) = answer.value
            handler.write(response, version: head.version, keepAlive: keepAlive, context: context)
        }
        if response.delayMilliseconds > 0 {
            context.eventLoop.scheduleTask(in: .microseconds(Int64(response.delayMilliseconds * 1000))) { send() }
        } else {
            send()
        }
    }

    /// A request that is not HTTP: NIO's error handler has answered 400; the connection ends here
    /// (NIO leaves closing it to the last handler).
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    private func write(_ response: SFResponse, version: HTTPVersion, keepAlive: Bool, context: ChannelHandlerContext) {
        guard context.channel.isActive else { return }
        var headers = HTTPHeaders()
        for (name, value) in response.headers where name.lowercased() != "content-length" {
            headers.add(name: name, value: value)
        }
        headers.replaceOrAdd(name: "content-length", value: "\(response.body.count)")
        if !keepAlive { headers.replaceOrAdd(name: "connection", value: "close") }
        let status = HTTPResponseStatus(statusCode: response.status)
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: version, status: status, headers: headers))), promise: nil)
        if !response.body.isEmpty {
            context.write(
                wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: response.body)))),
                promise: nil)
        }
        let done = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive {
            let channel = context.channel
            done.whenComplete { _ in channel.close(promise: nil) }
        }
    }
}

@available(*, unavailable)
extension FakeSalesforceHTTPHandler: Sendable {}
