import NIOCore
import NIOHTTP1
import NIOWebSocket

/// The socket's channel handlers: the upgrade request, the websocket handshake, then the frames
/// read off the connection. They tell the socket what happened (``LeanSocket/opened()``,
/// ``LeanSocket/deliver(_:)``, ``LeanSocket/closing(code:reason:)``, ...); its lifecycle is in
/// LeanSocket.swift.
extension LeanSocket {
    /// Sends the HTTP upgrade request once the TCP connection is up.
    final class UpgradeRequester: ChannelInboundHandler, RemovableChannelHandler, @unchecked Sendable {
        typealias InboundIn = HTTPClientResponsePart
        typealias OutboundOut = HTTPClientRequestPart
        let head: HTTPRequestHead
        weak var socket: LeanSocket?
        init(head: HTTPRequestHead, socket: LeanSocket) {
            self.head = head
            self.socket = socket
        }
        func channelActive(context: ChannelHandlerContext) {
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            context.fireChannelActive()
        }
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            // A response that is not an upgrade: the server refused the websocket.
            if case .head(let response) = unwrapInboundIn(data) {
                socket?.refused(status: Int(response.status.code))
                context.close(promise: nil)
            }
        }
    }

    /// NIO's websocket handshake (its request key and its check of the server's
    /// `Sec-WebSocket-Accept`), then ``FrameHandler`` alone on the bytes: none of NIO's frame
    /// decoder, encoder or error handler.
    final class LeanUpgrader: NIOHTTPClientProtocolUpgrader, Sendable {
        private let handshake: NIOWebSocketClientUpgrader
        private let install: @Sendable (any Channel) -> EventLoopFuture<Void>
        init(maxFrameSize: Int, install: @escaping @Sendable (any Channel) -> EventLoopFuture<Void>) {
            handshake = NIOWebSocketClientUpgrader(maxFrameSize: maxFrameSize) { channel, _ in
                channel.eventLoop.makeSucceededVoidFuture()
            }
            self.install = install
        }
        var supportedProtocol: String { handshake.supportedProtocol }
        var requiredUpgradeHeaders: [String] { handshake.requiredUpgradeHeaders }
        func addCustom(upgradeRequestHeaders: inout HTTPHeaders) {
            handshake.addCustom(upgradeRequestHeaders: &upgradeRequestHeaders)
        }
        func shouldAllowUpgrade(upgradeResponse: HTTPResponseHead) -> Bool {
            handshake.shouldAllowUpgrade(upgradeResponse: upgradeResponse)
        }
        func upgrade(context: ChannelHandlerContext, upgradeResponse: HTTPResponseHead) -> EventLoopFuture<Void> {
            install(context.channel)
        }
    }

    /// Frames in, parsed in place from the bytes read (``LeanFrames``): text (and binary) to the
    /// socket's sink, fragments joined, pings answered, a close answered and ended. A stream that
    /// breaks RFC 6455 is closed with the code the RFC names (1002, or 1009 for a frame over
    /// `maxFrameSize`) and the socket ends with the reason.
    final class FrameHandler: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        weak var socket: LeanSocket?
        let maxFrameSize: Int
        /// Bytes of a frame whose end has not arrived yet.
        var unread: ByteBuffer?
        /// The fragments of a message so far.
        var partial: ByteBuffer?
        var failed = false
        init(socket: LeanSocket, maxFrameSize: Int) {
            self.socket = socket
            self.maxFrameSize = maxFrameSize
        }

        func handlerAdded(context: ChannelHandlerContext) { Self.open(socket, once: context.pipeline) }

        /// Says the socket is open only once NIO's client upgrade handler has left the pipeline.
        /// This handler is added while the upgrade is still finishing, and until the upgrade
        /// handler is removed it refuses writes (`writingToHandlerAfterUpgradeCompleted` in the
        /// instant between the end of the upgrade and its removal): a frame a caller sent the
        /// moment `connected()` returned was lost, and the error closed the socket behind it (a
        /// join lost so, with the resend after it delivered, made the server refuse the resend as
        /// "not joined" in a demo run, and the client abandoned an edit).
        static func open(_ socket: LeanSocket?, once pipeline: ChannelPipeline, tries: Int = 0) {
            let upgrading = (try? pipeline.syncOperations.context(handlerType: NIOHTTPClientUpgradeHandler.self)) != nil
            guard upgrading, tries < 1_000 else {
                socket?.opened()
                return
            }
            pipeline.eventLoop.execute { open(socket, once: pipeline, tries: tries + 1) }
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard !failed else { return }
            var bytes = unwrapInboundIn(data)
            if var earlier = unread {
                unread = nil
                earlier.writeBuffer(&bytes)
                bytes = earlier
            }
            do {
                while let frame = try LeanFrames.next(in: &bytes, maxFrameSize: maxFrameSize) {
                    try handle(frame, context: context)
                    if failed { return }
                }
            } catch {
                fail(error, context: context)
                return
            }
            // Most reads end on a frame's end; what is left waits for the rest of its frame.
            if bytes.readableBytes > 0 { unread = bytes.slice() }
        }

        private func handle(_ frame: LeanFrames.Frame, context: ChannelHandlerContext) throws(LeanFrames.Violation) {
            switch frame.opcode {
            case .text, .binary:
                guard partial == nil else {
                    throw LeanFrames.Violation(
                        closeCode: 1002, description: "a new message before the last one's final fragment")
                }
                if frame.fin { socket?.deliver(frame.payload) } else { partial = frame.payload }
            case .continuation:
                guard partial != nil else {
                    throw LeanFrames.Violation(
                        closeCode: 1002, description: "a continuation frame with no message begun")
                }
                var data = frame.payload
                guard partial!.readableBytes + data.readableBytes <= maxFrameSize else {
                    throw LeanFrames.Violation(
                        closeCode: 1009, description: "a fragmented message over the limit of \(maxFrameSize) bytes")
                }
                partial!.writeBuffer(&data)
                if frame.fin, let whole = partial { partial = nil; socket?.deliver(whole) }
            case .pong:
                socket?.ponged()
            case .ping:
                context.writeAndFlush(
                    wrapOutboundOut(
                        LeanFrames.encode(.pong, bytes: frame.payload, allocator: context.channel.allocator)),
                    promise: nil)
            case .close:
                var data = frame.payload
                let code = data.readInteger(as: UInt16.self).map(Int.init)
                let reason = data.readString(length: data.readableBytes)
                socket?.closing(code: code, reason: reason)
                let echo = LeanFrames.close(code: UInt16(code ?? 1000), allocator: context.channel.allocator)
                failed = true  // nothing is read after a close
                // The channel, not the context, in the callback: a context is not Sendable.
                let channel = context.channel
                context.writeAndFlush(wrapOutboundOut(echo)).whenComplete { _ in channel.close(promise: nil) }
            }
        }

        private func fail(_ violation: LeanFrames.Violation, context: ChannelHandlerContext) {
            failed = true
            unread = nil
            partial = nil
            socket?.failed("the server broke the websocket protocol: \(violation.description)")
            let close = LeanFrames.close(code: violation.closeCode, allocator: context.channel.allocator)
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(close)).whenComplete { _ in channel.close(promise: nil) }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            socket?.failed("\(error)")
            context.close(promise: nil)
        }
    }
}
