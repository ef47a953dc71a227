import CLibssl
import NIOCore

/// One TLS connection as the first handler of a NIO pipeline, on the system's OpenSSL: ciphertext
/// from the socket comes out as plaintext reads; plaintext writes go to the socket encrypted.
/// Writes made before the handshake ends wait for it, so a client's first request can be written
/// at once. A failed handshake (a certificate the client does not trust, a name that does not
/// match) is fired as a ``TLSError`` and closes the channel.
///
/// ```swift
/// let tls = try TLSContext.client(caFile: caPath)
/// ClientBootstrap(group: group).channelInitializer { channel in
///     channel.eventLoop.makeCompletedFuture {
///         try channel.pipeline.syncOperations.addHandler(TLSHandler(context: tls, serverHostname: "127.0.0.1"))
///     }
/// }
/// ```
public final class TLSHandler: ChannelDuplexHandler, RemovableChannelHandler {
    public typealias InboundIn = ByteBuffer
    public typealias InboundOut = ByteBuffer
    public typealias OutboundIn = ByteBuffer
    public typealias OutboundOut = ByteBuffer

    /// Fired inbound once the handshake has ended, with the protocol version (`TLSv1.3`).
    public struct HandshakeCompleted: Sendable {
        public var version: String
    }

    private enum State { case handshaking, open, closed }

    private let context: TLSContext  // the SSL_CTX must outlive the connection
    private let tls: OpaquePointer
    private var state = State.handshaking
    /// Writes made during the handshake, sent once it ends.
    private var waiting: [(ByteBuffer, EventLoopPromise<Void>?)] = []
    private var flushWaiting = false
    private var error = [CChar](repeating: 0, count: 512)

    /// A connection of `context`'s side; a client checks the server's certificate names
    /// `serverHostname` (a DNS name or an IP address; nil: any name its trust accepts).
    public init(context: TLSContext, serverHostname: String? = nil) throws(TLSError) {
        self.context = context
        var err = [CChar](repeating: 0, count: 512)
        let made: OpaquePointer? =
            if let serverHostname {
                serverHostname.withCString { whale_tls_new(context.pointer, context.isServer ? 1 : 0, $0, &err, 512) }
            } else {
                whale_tls_new(context.pointer, context.isServer ? 1 : 0, nil, &err, 512)
            }
        guard let made else { throw TLSError(message: err) }
        tls = made
    }

    deinit { whale_tls_free(tls) }

    public func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context) }
    }

    public func channelActive(context: ChannelHandlerContext) {
        start(context)
        context.fireChannelActive()
    }

    /// A client speaks first.
    private func start(_ context: ChannelHandlerContext) {
        if !self.context.isServer, state == .handshaking { advance(context) }
    }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard state != .closed else { return }
        let bytes = unwrapInboundIn(data)
        let fed = bytes.withUnsafeReadableBytes {
            whale_tls_feed(tls, $0.baseAddress?.assumingMemoryBound(to: UInt8.self), $0.count)
        }
        guard fed == 0 else { return fail(context, TLSError("TLS: cannot buffer the peer's bytes")) }
        if state == .handshaking { advance(context) }
        if state == .open { readPlaintext(context) }
    }

    public func channelReadComplete(context: ChannelHandlerContext) {
        context.fireChannelReadComplete()
    }

    public func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let plain = unwrapOutboundIn(data)
        switch state {
        case .handshaking: waiting.append((plain, promise))
        case .open: encrypt(context, plain, promise: promise)
        case .closed: promise?.fail(ChannelError.ioOnClosedChannel)
        }
    }

    public func flush(context: ChannelHandlerContext) {
        if state == .handshaking { flushWaiting = true } else { context.flush() }
    }

    /// Closing sends a close_notify first, so the peer knows the data ended where it did.
    public func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        if state == .open, mode != .input {
            whale_tls_shutdown(tls)
            if sendPending(context, promise: nil) { context.flush() }
        }
        if mode == .all { closed(ChannelError.ioOnClosedChannel) }
        context.close(mode: mode, promise: promise)
    }

    public func channelInactive(context: ChannelHandlerContext) {
        closed(state == .handshaking ? TLSError("TLS: the connection closed during the handshake") : ChannelError.eof)
        context.fireChannelInactive()
    }

    private func closed(_ why: any Error) {
        state = .closed
        let pending = waiting
        waiting = []
        for (_, promise) in pending { promise?.fail(why) }
    }

    /// Runs the handshake as far as the bytes so far allow, sending what it produced.
    private func advance(_ context: ChannelHandlerContext) {
        let r = whale_tls_handshake(tls, &error, 512)
        if sendPending(context, promise: nil) { context.flush() }
        if r < 0 { return fail(context, TLSError(message: error)) }
        guard r == 1 else { return }
        state = .open
        context.fireUserInboundEventTriggered(HandshakeCompleted(version: String(cString: whale_tls_version(tls))))
        let pending = waiting
        waiting = []
        for (plain, promise) in pending { encrypt(context, plain, promise: promise) }
        if flushWaiting || !pending.isEmpty {
            flushWaiting = false
            context.flush()
        }
    }

    private func readPlaintext(_ context: ChannelHandlerContext) {
        var plain = context.channel.allocator.buffer(capacity: 16_384)
        while state == .open {
            var n: Int32 = 0
            plain.writeWithUnsafeMutableBytes(minimumWritableBytes: 16_384) { out in
                n = whale_tls_read(
                    tls, out.baseAddress?.assumingMemoryBound(to: UInt8.self), out.count, &error, 512)
                return n > 0 ? Int(n) : 0
            }
            if n > 0 { continue }
            if n == 0 { break }
            if plain.readableBytes > 0 { context.fireChannelRead(wrapInboundOut(plain)) }
            if n == -2 {
                // The peer's close_notify: answer it and close.
                whale_tls_shutdown(tls)
                if sendPending(context, promise: nil) { context.flush() }
                closed(ChannelError.eof)
                context.close(promise: nil)
            } else {
                fail(context, TLSError(message: error))
            }
            return
        }
        // Reading can make bytes to send (a TLS 1.3 key update, a session ticket).
        if sendPending(context, promise: nil) { context.flush() }
        if plain.readableBytes > 0 { context.fireChannelRead(wrapInboundOut(plain)) }
    }

    private func encrypt(_ context: ChannelHandlerContext, _ plain: ByteBuffer, promise: EventLoopPromise<Void>?) {
        guard plain.readableBytes > 0 else {
            context.write(wrapOutboundOut(plain), promise: promise)
            return
        }
        let r = plain.withUnsafeReadableBytes {
            whale_tls_write(
                tls, $0.baseAddress?.assumingMemoryBound(to: UInt8.self), $0.count, &error, 512)
        }
        guard r >= 0 else {
            let why = TLSError(message: error)
            promise?.fail(why)
            return fail(context, why)
        }
        if !sendPending(context, promise: promise) { promise?.succeed() }
    }

    /// Writes the ciphertext OpenSSL has made (not flushed); false when there was none.
    private func sendPending(_ context: ChannelHandlerContext, promise: EventLoopPromise<Void>?) -> Bool {
        let count = whale_tls_pending(tls)
        guard count > 0 else { return false }
        var out = context.channel.allocator.buffer(capacity: count)
        out.writeWithUnsafeMutableBytes(minimumWritableBytes: count) {
            Int(whale_tls_take(tls, $0.baseAddress?.assumingMemoryBound(to: UInt8.self), count))
        }
        context.write(wrapOutboundOut(out), promise: promise)
        return true
    }

    private func fail(_ context: ChannelHandlerContext, _ why: TLSError) {
        guard state != .closed else { return }
        closed(why)
        context.fireErrorCaught(why)
        context.close(promise: nil)
    }
}

@available(*, unavailable)
extension TLSHandler: Sendable {}
