import NIOCore
import NIOWebSocket

/// One upgraded `/socket` on plain SwiftNIO, after NIO's frame decoder: whole messages (fragments
/// joined) go to ``SocketEndpoint`` on the connection's event loop; pings are answered; the close
/// handshake is finished (an answered close, or the peer's close echoed); a ping every 30 s, and a
/// peer that has not answered the last one by the next is closed with 1001 (going away), as the
/// server did on hummingbird-websocket (docs/decisions/0058-reference-server-on-plain-nio.md).
final class SocketFrameHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    static let pingPeriod: TimeAmount = .seconds(30)

    private let endpoint: SocketEndpoint
    private let handshake: SocketEndpoint.Handshake
    private var connection: SocketConnection?
    /// Refused at the handshake: its messages are not read.
    private var refused = false
    /// A fragmented message being joined, and whether it is text.
    private var message: ByteBuffer?
    private var messageIsText = false
    private var pinger: RepeatedTask?
    private var unansweredPing: ByteBuffer?
    private var pings: UInt64 = 0

    init(endpoint: SocketEndpoint, handshake: SocketEndpoint.Handshake) {
        self.endpoint = endpoint
        self.handshake = handshake
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let connection = endpoint.open(channel: context.channel, handshake: handshake)
        self.connection = connection
        refused = connection.state.withLockedValue { $0.refused }
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        pinger = context.eventLoop.scheduleRepeatedTask(initialDelay: Self.pingPeriod, delay: Self.pingPeriod) { _ in
            let (handler, context) = bound.value
            handler.ping(context: context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        pinger?.cancel()
        if let connection { endpoint.closed(connection) }
        connection = nil
        context.fireChannelInactive()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable, let connection { endpoint.writable(connection) }
        context.fireChannelWritabilityChanged()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        guard let connection else { return }
        guard !frame.rsv1, !frame.rsv2, !frame.rsv3 else {
            return protocolError("reserved bits set (no extension was agreed)", connection)
        }
        switch frame.opcode {
        case .text, .binary:
            guard message == nil else { return protocolError("a new message inside a fragmented one", connection) }
            messageIsText = frame.opcode == .text
            if frame.fin {
                deliver(frame.unmaskedData, connection)
            } else {
                message = frame.unmaskedData
                checkLength(connection)
            }
        case .continuation:
            guard var partial = message else { return protocolError("a continuation with no message", connection) }
            message = nil
            var more = frame.unmaskedData
            partial.writeBuffer(&more)
            if frame.fin {
                deliver(partial, connection)
            } else {
                message = partial
                checkLength(connection)
            }
        case .ping:
            guard !connection.closeSent else { return }
            context.writeAndFlush(
                wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)), promise: nil)
        case .pong:
            if let ping = unansweredPing, ping == frame.unmaskedData { unansweredPing = nil }
        case .connectionClose:
            if connection.closeSent {
                // The answer to our close: the handshake is over.
                context.close(promise: nil)
            } else {
                // The peer closes: echo its code (1000 when it gave none), then hang up.
                var data = frame.unmaskedData
                let code = data.readWebSocketErrorCode() ?? .normalClosure
                connection.finish()
                var answer = context.channel.allocator.buffer(capacity: 2)
                answer.write(webSocketErrorCode: code)
                context.writeAndFlush(
                    wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: answer))
                )
                .whenComplete { [channel = context.channel] _ in channel.close(promise: nil) }
            }
        default:
            protocolError("unknown opcode \(frame.opcode)", connection)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let connection, let error = error as? NIOWebSocketError else {
            context.close(promise: nil)
            return
        }
        // The decoder stops at its error, so the peer's close could not be read: hang up once ours is out.
        if error == .invalidFrameLength {
            endpoint.tooLarge(connection)
        } else {
            connection.close(.protocolError, reason: "\(error)")
        }
        let channel = context.channel
        connection.state.withLockedValue { $0.closing }?.whenComplete { _ in channel.close(promise: nil) }
    }

    private func deliver(_ buffer: ByteBuffer, _ connection: SocketConnection) {
        guard !refused, !connection.closeSent else { return }
        guard buffer.readableBytes <= endpoint.hardLimit else { return endpoint.tooLarge(connection) }
        // Text as the server always read it: as a String (invalid UTF-8 repaired), then its bytes.
        let bytes = messageIsText ? Array(String(buffer: buffer).utf8) : Array(buffer: buffer)
        endpoint.receive(bytes, on: connection)
    }

    private func checkLength(_ connection: SocketConnection) {
        guard let message, message.readableBytes > endpoint.hardLimit else { return }
        self.message = nil
        endpoint.tooLarge(connection)
    }

    private func protocolError(_ reason: String, _ connection: SocketConnection) {
        message = nil
        connection.close(.protocolError, reason: reason)
    }

    private func ping(context: ChannelHandlerContext) {
        guard let connection, !connection.closeSent else { return }
        if unansweredPing != nil {
            connection.close(.goingAway, reason: "no pong to the last ping")
            return
        }
        pings += 1
        var data = context.channel.allocator.buffer(capacity: 8)
        data.writeInteger(pings)
        unansweredPing = data
        context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .ping, data: data)), promise: nil)
    }
}

@available(*, unavailable)
extension SocketFrameHandler: Sendable {}
