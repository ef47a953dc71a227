import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

/// A client websocket straight on NIO's channel pipeline: frames are decoded and handed to
/// `onText` on the connection's event loop, sends are masked frames written from any thread.
/// No task per connection and no async stream per frame, so the load runner holds thousands of
/// them on a couple of cores (docs/decisions/0013-runner-websocket-client-lean-socket.md compares it
/// with ``LiveSocket``, which sits on hummingbird-websocket's client). The same API as ``LiveSocket``.
public final class LeanSocket: @unchecked Sendable {
    struct State {
        var channel: (any Channel)?
        var open = false
        var ending: LiveSocket.Ending?
        var waiters: [CheckedContinuation<Bool, Never>] = []
        var endWaiters: [CheckedContinuation<Void, Never>] = []
        var endCallbacks: [@Sendable () -> Void] = []
        var pending: [(String, Bool)] = []
        var pongs = 0
    }

    private let state = NIOLockedValueBox(State())
    /// Where incoming messages go: as text, or as the bytes themselves for a reader that
    /// parses UTF-8 itself (the load runner's hot path: no `String` made and then taken apart).
    private enum Sink {
        case text(@Sendable (String) -> Void)
        case bytes(@Sendable ([UInt8]) -> Void)
    }
    private let sink: Sink
    /// Where the upgrade's time-out runs (``connected(timeout:)``).
    private let timerLoop: any EventLoop

    /// `receiveBufferBytes` sets the socket's kernel receive buffer (SO_RCVBUF) before it
    /// connects: small, it lets ``pauseReading()`` make a reader the server sees as slow within a
    /// few hundred kilobytes (the conformance suite's slow reader).
    public convenience init(url: String, headers: [(String, String)] = [], maxFrameSize: Int = 1 << 20,
                            group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, receiveBufferBytes: Int? = nil,
                            onText: @escaping @Sendable (String) -> Void) {
        self.init(url: url, headers: headers, maxFrameSize: maxFrameSize, group: group, receiveBufferBytes: receiveBufferBytes, sink: .text(onText))
    }

    /// Delivers each message's bytes as they came (text frames are not checked for UTF-8 here).
    public convenience init(url: String, headers: [(String, String)] = [], maxFrameSize: Int = 1 << 20,
                            group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, onBytes: @escaping @Sendable ([UInt8]) -> Void) {
        self.init(url: url, headers: headers, maxFrameSize: maxFrameSize, group: group, receiveBufferBytes: nil, sink: .bytes(onBytes))
    }

    private init(url: String, headers: [(String, String)], maxFrameSize: Int, group: any EventLoopGroup, receiveBufferBytes: Int?, sink: Sink) {
        self.sink = sink
        timerLoop = group.next()
        guard let u = URL(string: url), let host = u.host, u.scheme == "ws" else {
            finish(LiveSocket.Ending(closeCode: nil, reason: nil, error: "not a ws:// URL: \(url)"))
            return
        }
        let port = u.port ?? 80
        var uri = u.path.isEmpty ? "/" : u.path
        if let q = u.query { uri += "?" + q }
        var fields = HTTPHeaders()
        fields.add(name: "Host", value: "\(host):\(port)")
        for (name, value) in headers { fields.add(name: name, value: value) }
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: uri, headers: fields)
        var bootstrap = ClientBootstrap(group: group)
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            // Reads into 2 KB, always. NIO's adaptive default starts there but grows a socket's
            // pooled read buffer whenever a read fills it (a catch-up after a drop, a paste) and
            // never shrinks it: over a 300 s run of 1,000 sockets that was +1.1 MB of the runner's
            // live bytes, a creep with the length of the run (issue 21, heaptrack). A larger
            // message only takes more reads; FrameHandler joins frames split anywhere.
            .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: 2048))
        if let receiveBufferBytes { bootstrap = bootstrap.channelOption(.socketOption(.so_rcvbuf), value: SocketOptionValue(receiveBufferBytes)) }
        let connect = bootstrap
            .channelInitializer { [self] channel in
                // The channel is known here, on its loop, before any byte moves. (Taken only in
                // the connect's callback, which the caller's thread registers after `connect`
                // returns, a caller descheduled in between (a saturated runner at a restart's
                // storm) registered it after the upgrade was done, and a busy loop ran it later
                // still: in between the socket was open with no channel, and `send` dropped every frame without a word. The join never left,
                // and the client sat unjoined until its 9 s half-open check: 2 of 5 demos beside
                // two busy loops. LeanSocketLateCallerTests.)
                state.withLockedValue { $0.channel = channel }
                let requester = UpgradeRequester(head: head, socket: self)
                let upgrader = LeanUpgrader(maxFrameSize: maxFrameSize) { channel in
                    channel.pipeline.removeHandler(requester).flatMap { channel.pipeline.addHandler(FrameHandler(socket: self, maxFrameSize: maxFrameSize)) }
                }
                let config: NIOHTTPClientUpgradeConfiguration = (upgraders: [upgrader], completionHandler: { _ in })
                // Forward what follows the 101 in the decoder's buffer: a frame the server sent at
                // once (a refusal's `error`) arrives in the same read on a busy machine, and NIO's
                // default drops it (LeanSocketFirstFrameTests).
                do {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers(leftOverBytesStrategy: .forwardBytes, withClientUpgrade: config)
                    try channel.pipeline.syncOperations.addHandler(requester)
                    return channel.eventLoop.makeSucceededVoidFuture()
                } catch {
                    return channel.eventLoop.makeFailedFuture(error)
                }
            }
            .connect(host: host, port: port)
        Self.afterConnectStarted?(url)
        connect.whenComplete { [self] result in
            switch result {
            case .success(let channel):
                channel.closeFuture.whenComplete { [self] _ in
                    finish(state.withLockedValue { $0.ending } ?? LiveSocket.Ending(closeCode: nil, reason: nil, error: state.withLockedValue { $0.open } ? "closed" : "the upgrade was refused"))
                }
            case .failure(let error):
                finish(LiveSocket.Ending(closeCode: nil, reason: nil, error: "\(error)"))
            }
        }
    }

    /// A test's hook: runs on the caller's thread between starting the connect and registering
    /// its callback (where a descheduled caller once lost every frame; see the initializer).
    /// Given the socket's URL, so a test delays only its own sockets.
    nonisolated(unsafe) static var afterConnectStarted: (@Sendable (String) -> Void)?

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
            handshake = NIOWebSocketClientUpgrader(maxFrameSize: maxFrameSize) { channel, _ in channel.eventLoop.makeSucceededVoidFuture() }
            self.install = install
        }
        var supportedProtocol: String { handshake.supportedProtocol }
        var requiredUpgradeHeaders: [String] { handshake.requiredUpgradeHeaders }
        func addCustom(upgradeRequestHeaders: inout HTTPHeaders) { handshake.addCustom(upgradeRequestHeaders: &upgradeRequestHeaders) }
        func shouldAllowUpgrade(upgradeResponse: HTTPResponseHead) -> Bool { handshake.shouldAllowUpgrade(upgradeResponse: upgradeResponse) }
        func upgrade(context: ChannelHandlerContext, upgradeResponse: HTTPResponseHead) -> EventLoopFuture<Void> { install(context.channel) }
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
                guard partial == nil else { throw LeanFrames.Violation(closeCode: 1002, description: "a new message before the last one's final fragment") }
                if frame.fin { socket?.deliver(frame.payload) } else { partial = frame.payload }
            case .continuation:
                guard partial != nil else { throw LeanFrames.Violation(closeCode: 1002, description: "a continuation frame with no message begun") }
                var data = frame.payload
                guard partial!.readableBytes + data.readableBytes <= maxFrameSize else {
                    throw LeanFrames.Violation(closeCode: 1009, description: "a fragmented message over the limit of \(maxFrameSize) bytes")
                }
                partial!.writeBuffer(&data)
                if frame.fin, let whole = partial { partial = nil; socket?.deliver(whole) }
            case .pong:
                socket?.ponged()
            case .ping:
                context.writeAndFlush(wrapOutboundOut(LeanFrames.encode(.pong, bytes: frame.payload, allocator: context.channel.allocator)), promise: nil)
            case .close:
                var data = frame.payload
                let code = data.readInteger(as: UInt16.self).map(Int.init)
                let reason = data.readString(length: data.readableBytes)
                socket?.closing(code: code, reason: reason)
                let echo = LeanFrames.close(code: UInt16(code ?? 1000), allocator: context.channel.allocator)
                failed = true // nothing is read after a close
                context.writeAndFlush(wrapOutboundOut(echo)).whenComplete { _ in context.close(promise: nil) }
            }
        }

        private func fail(_ violation: LeanFrames.Violation, context: ChannelHandlerContext) {
            failed = true
            unread = nil
            partial = nil
            socket?.failed("the server broke the websocket protocol: \(violation.description)")
            let close = LeanFrames.close(code: violation.closeCode, allocator: context.channel.allocator)
            context.writeAndFlush(wrapOutboundOut(close)).whenComplete { _ in context.close(promise: nil) }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            socket?.failed("\(error)")
            context.close(promise: nil)
        }
    }

    fileprivate func deliver(_ buffer: ByteBuffer) {
        switch sink {
        case .text(let onText): onText(String(buffer: buffer))
        case .bytes(let onBytes): onBytes(Array(buffer.readableBytesView))
        }
    }

    fileprivate func opened() {
        let (waiters, pending, channel) = state.withLockedValue { s -> ([CheckedContinuation<Bool, Never>], [(String, Bool)], (any Channel)?) in
            s.open = true
            defer { s.waiters = []; s.pending = [] }
            return (s.waiters, s.pending, s.channel)
        }
        if let channel { for (text, binary) in pending { write(text, binary: binary, on: channel) } }
        for w in waiters { w.resume(returning: true) }
    }

    fileprivate func ponged() { state.withLockedValue { $0.pongs += 1 } }

    /// Pongs received so far: an observer that pings can tell a quiet peer from a dead one
    /// (a half-open connection answers nothing, not even a pong).
    public var pongsReceived: Int { state.withLockedValue { $0.pongs } }

    /// Stops reading from the socket (NIO's autoRead off): frames wait in the kernel's buffers,
    /// and once those fill, in the server's. ``resumeReading()`` reads on.
    public func pauseReading() { setAutoRead(false) }
    public func resumeReading() { setAutoRead(true) }

    private func setAutoRead(_ on: Bool) {
        guard let channel = state.withLockedValue({ $0.channel }) else { return }
        channel.setOption(ChannelOptions.autoRead, value: on).whenComplete { _ in
            if on { channel.read() }
        }
    }

    /// Sends a ping (the peer must answer with a pong, RFC 6455 §5.5.2).
    public func ping() {
        guard let channel = state.withLockedValue({ $0.open ? $0.channel : nil }) else { return }
        channel.writeAndFlush(LeanFrames.encode(.ping, bytes: ByteBuffer(), allocator: channel.allocator), promise: nil)
    }

    fileprivate func refused(status: Int) {
        state.withLockedValue { if $0.ending == nil { $0.ending = LiveSocket.Ending(closeCode: nil, reason: nil, error: "the upgrade was refused with HTTP \(status)") } }
    }

    fileprivate func closing(code: Int?, reason: String?) {
        state.withLockedValue { if $0.ending == nil { $0.ending = LiveSocket.Ending(closeCode: code, reason: reason, error: nil) } }
    }

    fileprivate func failed(_ error: String) {
        state.withLockedValue { if $0.ending == nil { $0.ending = LiveSocket.Ending(closeCode: nil, reason: nil, error: error) } }
    }

    private func finish(_ ending: LiveSocket.Ending) {
        let (waiters, endWaiters, callbacks) = state.withLockedValue { s in
            if s.ending == nil { s.ending = ending }
            s.open = false
            defer { s.waiters = []; s.endWaiters = []; s.endCallbacks = [] }
            return (s.waiters, s.endWaiters, s.endCallbacks)
        }
        for w in waiters { w.resume(returning: false) }
        for w in endWaiters { w.resume() }
        if !callbacks.isEmpty { timerLoop.execute { for callback in callbacks { callback() } } }
    }

    private var isEnded: Bool { state.withLockedValue { $0.ending != nil && !$0.open && ($0.channel == nil || !$0.channel!.isActive) } }

    /// Waits for the upgrade; false if the socket could not open (see ``ending``).
    @discardableResult
    public func connected() async -> Bool {
        await withCheckedContinuation { continuation in
            let ready = state.withLockedValue { s -> Bool? in
                if s.open { return true }
                if s.ending != nil { return false }
                s.waiters.append(continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Waits for the upgrade at most `timeout`; on time-out the connection is closed and false returned.
    public func connected(timeout: Duration) async -> Bool {
        // A timer on an event loop, not a task asleep on a Dispatch timer: after a server restart
        // a thousand sockets wait here at once, and each task and its timer added some 2 KB to
        // the storm's peak (issue 21).
        let timer = timerLoop.scheduleTask(in: TimeAmount(timeout)) { [self] in
            let channel = state.withLockedValue { s -> (any Channel)? in
                if !s.open, s.ending == nil { s.ending = LiveSocket.Ending(closeCode: nil, reason: nil, error: "no upgrade within \(timeout)") }
                return s.open ? nil : s.channel
            }
            channel?.close(promise: nil)
            if channel == nil, !state.withLockedValue({ $0.open }) { finish(LiveSocket.Ending(closeCode: nil, reason: nil, error: "no upgrade within \(timeout)")) }
        }
        let ok = await connected()
        timer.cancel()
        return ok
    }

    /// Queues a text (or binary) frame; frames sent before the upgrade go out once it is done.
    public func send(_ text: String, binary: Bool = false) {
        let channel = state.withLockedValue { s -> (any Channel)? in
            if s.open { return s.channel }
            if s.ending == nil { s.pending.append((text, binary)) }
            return nil
        }
        if let channel { write(text, binary: binary, on: channel) }
    }

    /// Always through the loop's task queue, even from the loop itself. A write made right there
    /// can run the channel's read path before it returns (a failed flush reads to learn why:
    /// a server restart resets every socket), and that read delivers a frame to a client whose
    /// lock the sender holds: with Swift tasks on the event loops, a whole loop hung that way at a
    /// soak run's restart. Through the queue, frames also leave in the order `send` was called,
    /// from whichever thread (a direct write on the loop could pass one queued from elsewhere).
    private func write(_ text: String, binary: Bool, on channel: any Channel) {
        let frame = LeanFrames.encode(binary ? .binary : .text, text: text, allocator: channel.allocator)
        channel.eventLoop.execute { channel.writeAndFlush(frame, promise: nil) }
    }

    /// How it ended, once it has.
    public var ending: LiveSocket.Ending? { state.withLockedValue { $0.open ? nil : $0.ending } }

    /// Waits until the socket has ended, whoever ended it.
    public func waitEnded() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let done = state.withLockedValue { s -> Bool in
                if s.ending != nil, !s.open, s.channel.map({ !$0.isActive }) ?? true { return true }
                s.endWaiters.append(c)
                return false
            }
            if done { c.resume() }
        }
    }

    /// Calls `then` once the socket has ended, whoever ended it, on an event loop and never from
    /// inside the call that ended it (a caller may hold its own lock there). What a client keeps
    /// for the whole life of a connection is then a closure, where a task awaiting
    /// ``waitEnded()`` kept a task and its first stack slab, some 1.5 KB a socket, made anew for
    /// a thousand sockets at each server restart (issue 21).
    public func onEnded(_ then: @escaping @Sendable () -> Void) {
        let done = state.withLockedValue { s -> Bool in
            if s.ending != nil, !s.open, s.channel.map({ !$0.isActive }) ?? true { return true }
            s.endCallbacks.append(then)
            return false
        }
        if done { timerLoop.execute(then) }
    }

    /// Sends a close frame (1000) and waits for the socket to end.
    public func close() async {
        let (channel, open) = state.withLockedValue { ($0.channel, $0.open) }
        guard let channel, channel.isActive else {
            finish(LiveSocket.Ending(closeCode: nil, reason: nil, error: "closed"))
            return
        }
        guard open else {
            // Still upgrading (a server that has not answered the upgrade): a close frame would
            // reach the HTTP encoder, which traps on it (NIOAny: "found WebSocketFrame"), as it
            // did when a power loss left a team server refusing upgrades. Just hang up.
            state.withLockedValue { if $0.ending == nil { $0.ending = LiveSocket.Ending(closeCode: nil, reason: nil, error: "closed before the upgrade") } }
            channel.close(promise: nil)
            await waitEnded()
            return
        }
        channel.writeAndFlush(LeanFrames.close(code: 1000, allocator: channel.allocator), promise: nil)
        // The server answers the close and shuts the connection; do not wait forever for it.
        channel.eventLoop.scheduleTask(in: .seconds(2)) { channel.close(promise: nil) }
        await waitEnded()
    }
}
