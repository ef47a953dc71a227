import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// One proxied connection: the accepted client channel, the upstream channel it opened, and
/// the two directions' queues. All of its state lives on the client channel's event loop (the
/// upstream channel is opened on the same loop), so only the client tag needs a lock: the
/// proxy reads it from any thread to pick the connections a fault applies to.
final class ProxyConnection: @unchecked Sendable {
    private weak var proxy: FaultProxy?
    let clientChannel: any Channel
    private var upstream: (any Channel)?
    /// Client bytes read before the upstream connection was up.
    private var pending: [ByteBuffer] = []
    private var tag = ClientTag()
    private let identity = NIOLockedValueBox<String?>(nil)
    private var up = ChunkQueue()
    private var down = ChunkQueue()
    private var upTimer: Scheduled<Void>?
    private var downTimer: Scheduled<Void>?
    /// One side closed normally: the other is closed once the bytes on their way to it have left.
    private var closeUpstreamWhenDrained = false
    private var closed = false
    /// Once a connection has lost bytes to a half-open window it stays silent for good: a stream
    /// with a hole in it is garbage, and a real half-open connection never comes back.
    private var silenced = false
    /// A side closed during a half-open window; the other side learns nothing until it ends.
    private var orphaned = false
    /// Bytes a direction may have waiting or held before the proxy stops reading its sender, so a
    /// bandwidth cap or a partition pushes back through TCP instead of filling the proxy's memory.
    static let queuedBytesMax = 1 << 20
    private var upPaused = false
    private var downPaused = false
    private var loop: any EventLoop { clientChannel.eventLoop }

    /// `WHALESIM_CONNECT_LOG=1`: upstream connections that fail or take 500 ms or more are printed.
    static let logsSlowConnects = ProcessInfo.processInfo.environment["WHALESIM_CONNECT_LOG"] == "1"

    init(proxy: FaultProxy, client: any Channel) {
        self.proxy = proxy
        clientChannel = client
    }

    /// The `whalesim-client` of the first request line; nil until seen, or if there is none.
    var client: String? { identity.withLockedValue { $0 } }

    func connectUpstream() {
        guard let proxy else { return }
        ClientBootstrap(group: loop)
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .channelInitializer { [self] ch in
                ch.eventLoop.makeCompletedFuture { try ch.pipeline.syncOperations.addHandler(ServerSide(self)) }
            }
            .connect(host: proxy.upstreamHost, port: proxy.upstreamPort)
            .whenComplete { [self, started = NIODeadline.now()] result in
                if Self.logsSlowConnects {
                    let ms = (NIODeadline.now() - started).nanoseconds / 1_000_000
                    let failed = (try? result.get()) == nil
                    if ms >= 500 || failed {
                        FileHandle.standardError.write(
                            Data(
                                "proxy: upstream for \(client ?? "?") \(failed ? "failed" : "connected") after \(ms) ms\n"
                                    .utf8))
                    }
                }
                switch result {
                case .success(let ch):
                    upstream = ch
                    if closed { ch.close(promise: nil); return }
                    let early = pending
                    pending = []
                    for b in early { route(b, upstream: true) }
                    if closeUpstreamWhenDrained { closeIfDrained() }
                case .failure:
                    // Nothing to talk to: the client sees its connection close, as with a refused connect.
                    sideClosed(client: false)
                }
            }
    }

    func fromClient(_ buffer: ByteBuffer) {
        if !tag.done, tag.feed(buffer.readableBytesView) {
            let who = tag.client
            identity.withLockedValue { $0 = who }
        }
        if upstream == nil { pending.append(buffer) } else { route(buffer, upstream: true) }
    }

    func fromServer(_ buffer: ByteBuffer) { route(buffer, upstream: false) }

    /// Sends a chunk on its way under the rules now in force.
    private func route(_ buffer: ByteBuffer, upstream isUp: Bool) {
        guard let proxy, !closed else { return }
        let rules = proxy.currentRules()
        let who = client
        if silenced || rules.isHalfOpen(who) {
            silenced = true
            proxy.count(discarded: 1)
            return
        }
        var queue = isUp ? up : down
        if rules.isPartitioned(who) {
            queue.hold(buffer)
            proxy.count(held: 1)
        } else {
            // What a partition held goes first: bytes never overtake each other.
            let conditions = rules.conditions(who, upstream: isUp)
            let now = NIODeadline.now()
            for chunk in queue.takeHeld() + [buffer] {
                queue.enqueue(chunk, now: now, conditions: conditions, jitterMs: proxy.jitter(conditions.jitterMs))
            }
        }
        if isUp { up = queue } else { down = queue }
        pump(isUp)
    }

    /// Drains a direction, then reads from its sender again only while little is queued.
    private func pump(_ isUp: Bool) {
        drain(isUp)
        throttle(isUp)
    }

    private func throttle(_ isUp: Bool) {
        guard !closed, let sender = isUp ? clientChannel : upstream else { return }
        let pause = (isUp ? up : down).bytes > Self.queuedBytesMax
        guard pause != (isUp ? upPaused : downPaused) else { return }
        if isUp { upPaused = pause } else { downPaused = pause }
        // Turning autoRead back on makes the channel read again by itself.
        sender.setOption(ChannelOptions.autoRead, value: !pause).whenComplete { _ in }
    }

    /// Writes every chunk whose time has come and schedules the next pump. A partition stops
    /// it (even chunks already delayed wait); a half-open window discards everything on its way.
    private func drain(_ isUp: Bool) {
        guard let proxy, !closed else { return }
        (isUp ? upTimer : downTimer)?.cancel()
        if isUp { upTimer = nil } else { downTimer = nil }
        let rules = proxy.currentRules()
        var queue = isUp ? up : down
        defer { if isUp { up = queue } else { down = queue } }
        if silenced || rules.isHalfOpen(client) {
            let lost = queue.discardAll()
            if lost > 0 { silenced = true; proxy.count(discarded: lost) }
            return
        }
        guard !rules.isPartitioned(client), let target = isUp ? upstream : clientChannel else { return }
        let due = queue.popDue(now: .now())
        if !due.isEmpty {
            var bytes = 0
            for chunk in due { bytes += chunk.readableBytes; target.write(chunk, promise: nil) }
            target.flush()
            proxy.count(up: isUp ? bytes : 0, down: isUp ? 0 : bytes)
        }
        if let next = queue.nextAt {
            let timer = loop.scheduleTask(deadline: next) { [self] in pump(isUp) }
            if isUp { upTimer = timer } else { downTimer = timer }
        } else if isUp, closeUpstreamWhenDrained {
            loop.execute { [self] in closeIfDrained() }
        }
    }

    /// A partition healed or a half-open window ended: held bytes go on their way, in order,
    /// and a close that waited for the window reaches the other side.
    func rulesChanged() {
        loop.execute { [self] in
            guard let proxy, !closed else { return }
            let rules = proxy.currentRules()
            if orphaned, !rules.isHalfOpen(client) { close(reset: false); return }
            if !rules.isPartitioned(client) {
                for isUp in [true, false] {
                    var queue = isUp ? up : down
                    guard !queue.held.isEmpty else { continue }
                    let conditions = rules.conditions(client, upstream: isUp)
                    let now = NIODeadline.now()
                    for chunk in queue.takeHeld() {
                        queue.enqueue(
                            chunk, now: now, conditions: conditions, jitterMs: proxy.jitter(conditions.jitterMs))
                    }
                    if isUp { up = queue } else { down = queue }
                }
            }
            pump(true)
            pump(false)
        }
    }

    /// One side went away. Normally the other side follows (the client's last bytes still reach
    /// the server first); during a half-open window nothing reaches the other side.
    func sideClosed(client isClient: Bool) {
        loop.execute { [self] in
            guard !closed else { return }
            if let proxy, proxy.currentRules().isHalfOpen(client) {
                orphaned = true
                silenced = true
                return
            }
            if isClient {
                closeUpstreamWhenDrained = true
                closeIfDrained()
            } else {
                close(reset: false)
            }
        }
    }

    private func closeIfDrained() {
        guard !closed, closeUpstreamWhenDrained else { return }
        // Bytes still connecting, delayed or held go first; a silenced stream has nothing worth waiting for.
        if silenced || (up.isEmpty && (upstream != nil || pending.isEmpty)) { close(reset: false) }
    }

    /// Closes both sides now; `reset` sends a TCP reset (SO_LINGER 0), as a dropped connection does.
    func close(reset: Bool) {
        loop.execute { [self] in
            guard !closed else { return }
            closed = true
            upTimer?.cancel()
            downTimer?.cancel()
            for ch in [clientChannel, upstream].compactMap({ $0 }) {
                if reset, let provider = ch as? any SocketOptionProvider {
                    provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in ch.close(promise: nil) }
                } else {
                    ch.close(promise: nil)
                }
            }
            proxy?.forget(self)
        }
    }
}
