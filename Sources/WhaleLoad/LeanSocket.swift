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
    public convenience init(
        url: String, headers: [(String, String)] = [], maxFrameSize: Int = 1 << 20,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, receiveBufferBytes: Int? = nil,
        onText: @escaping @Sendable (String) -> Void
    ) {
        self.init(
            url: url, headers: headers, maxFrameSize: maxFrameSize, group: group,
            receiveBufferBytes: receiveBufferBytes, sink: .text(onText))
    }

    /// Delivers each message's bytes as they came (text frames are not checked for UTF-8 here).
    public convenience init(
        url: String, headers: [(String, String)] = [], maxFrameSize: Int = 1 << 20,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        onBytes: @escaping @Sendable ([UInt8]) -> Void
    ) {
        self.init(
            url: url, headers: headers, maxFrameSize: maxFrameSize, group: group, receiveBufferBytes: nil,
            sink: .bytes(onBytes))
    }

    private init(
        url: String, headers: [(String, String)], maxFrameSize: Int, group: any EventLoopGroup,
        receiveBufferBytes: Int?, sink: Sink
    ) {
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
        if let receiveBufferBytes {
            bootstrap = bootstrap.channelOption(.socketOption(.so_rcvbuf), value: SocketOptionValue(receiveBufferBytes))
        }
        let connect =
            bootstrap
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
                    channel.pipeline.removeHandler(requester).flatMap {
                        channel.pipeline.addHandler(FrameHandler(socket: self, maxFrameSize: maxFrameSize))
                    }
                }
                let config: NIOHTTPClientUpgradeConfiguration = (upgraders: [upgrader], completionHandler: { _ in })
                // Forward what follows the 101 in the decoder's buffer: a frame the server sent at
                // once (a refusal's `error`) arrives in the same read on a busy machine, and NIO's
                // default drops it (LeanSocketFirstFrameTests).
                do {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers(
                        leftOverBytesStrategy: .forwardBytes, withClientUpgrade: config)
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
                    finish(
                        state.withLockedValue { $0.ending }
                            ?? LiveSocket.Ending(
                                closeCode: nil, reason: nil,
                                error: state.withLockedValue { $0.open } ? "closed" : "the upgrade was refused"))
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

    // What the channel handlers (LeanSocket+Pipeline.swift) tell the socket, on its event loop.

    func deliver(_ buffer: ByteBuffer) {
        switch sink {
        case .text(let onText): onText(String(buffer: buffer))
        case .bytes(let onBytes): onBytes(Array(buffer.readableBytesView))
        }
    }

    func opened() {
        let (waiters, pending, channel) = state.withLockedValue {
            s -> ([CheckedContinuation<Bool, Never>], [(String, Bool)], (any Channel)?) in
            s.open = true
            defer { s.waiters = []; s.pending = [] }
            return (s.waiters, s.pending, s.channel)
        }
        if let channel { for (text, binary) in pending { write(text, binary: binary, on: channel) } }
        for w in waiters { w.resume(returning: true) }
    }

    func ponged() { state.withLockedValue { $0.pongs += 1 } }

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

    func refused(status: Int) {
        state.withLockedValue {
            if $0.ending == nil {
                $0.ending = LiveSocket.Ending(
                    closeCode: nil, reason: nil, error: "the upgrade was refused with HTTP \(status)")
            }
        }
    }

    func closing(code: Int?, reason: String?) {
        state.withLockedValue {
            if $0.ending == nil { $0.ending = LiveSocket.Ending(closeCode: code, reason: reason, error: nil) }
        }
    }

    func failed(_ error: String) {
        state.withLockedValue {
            if $0.ending == nil { $0.ending = LiveSocket.Ending(closeCode: nil, reason: nil, error: error) }
        }
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

    private var isEnded: Bool {
        state.withLockedValue { $0.ending != nil && !$0.open && ($0.channel == nil || !$0.channel!.isActive) }
    }

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
                if !s.open, s.ending == nil {
                    s.ending = LiveSocket.Ending(closeCode: nil, reason: nil, error: "no upgrade within \(timeout)")
                }
                return s.open ? nil : s.channel
            }
            channel?.close(promise: nil)
            if channel == nil, !state.withLockedValue({ $0.open }) {
                finish(LiveSocket.Ending(closeCode: nil, reason: nil, error: "no upgrade within \(timeout)"))
            }
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
            state.withLockedValue {
                if $0.ending == nil {
                    $0.ending = LiveSocket.Ending(closeCode: nil, reason: nil, error: "closed before the upgrade")
                }
            }
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
