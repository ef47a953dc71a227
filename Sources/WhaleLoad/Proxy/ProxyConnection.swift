import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// One proxied connection: the accepted client channel, the upstream channel it opened, and
/// the two directions' queues. Everything runs on the client channel's event loop.
final class ProxyConnection: @unchecked Sendable {
    /// One direction's bytes on their way: when each chunk may leave, and what a partition holds.
    struct Direction {
        var queue: [(at: NIODeadline, buffer: ByteBuffer)] = []
        var held: [ByteBuffer] = []
        var lastAt = NIODeadline.uptimeNanoseconds(0)
        var scheduled: Scheduled<Void>?
    }

    private weak var proxy: FaultProxy?
    let clientChannel: any Channel
    private var upstream: (any Channel)?
    private var beforeUpstream: [ByteBuffer] = []
    private let identity = NIOLockedValueBox<String?>(nil)
    private var identified = false
    private var sniffed = ""
    private var up = Direction()
    private var down = Direction()
    private var closed = false
    /// Once a connection has lost bytes to a half-open window it stays silent for good: a stream
    /// with a hole in it is garbage, and a real half-open connection never comes back.
    private var silenced = false
    private var loop: any EventLoop { clientChannel.eventLoop }

    init(proxy: FaultProxy, client: any Channel) {
        self.proxy = proxy
        clientChannel = client
    }

    var client: String? { identity.withLockedValue { $0 } }

    /// The handler on the client's channel: bytes from the client go upstream.
    final class ClientSide: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer
        let connection: ProxyConnection
        init(_ c: ProxyConnection) { connection = c }
        func channelActive(context: ChannelHandlerContext) {
            connection.connectUpstream()
            context.fireChannelActive()
        }
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            connection.fromClient(unwrapInboundIn(data))
        }
        func errorCaught(context: ChannelHandlerContext, error: any Error) { connection.close(reset: false) }
    }

    /// The handler on the upstream channel: bytes from the server go to the client.
    final class ServerSide: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer
        let connection: ProxyConnection
        init(_ c: ProxyConnection) { connection = c }
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            connection.forward(unwrapInboundIn(data), upstream: false)
        }
        func channelInactive(context: ChannelHandlerContext) {
            // A half-open client never learns that the server went away.
            if connection.proxy?.currentRules().isHalfOpen(connection.client) != true { connection.close(reset: false) }
        }
        func errorCaught(context: ChannelHandlerContext, error: any Error) { connection.close(reset: false) }
    }

    func connectUpstream() {
        guard let proxy else { return }
        ClientBootstrap(group: loop)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { [self] ch in ch.pipeline.addHandler(ServerSide(self)) }
            .connect(host: proxy.upstreamHost, port: proxy.upstreamPort)
            .whenComplete { [self] result in
                switch result {
                case .success(let ch):
                    upstream = ch
                    if closed { ch.close(promise: nil); return }
                    for b in beforeUpstream { forward(b, upstream: true) }
                    beforeUpstream = []
                case .failure:
                    close(reset: false)
                }
            }
    }

    func fromClient(_ buffer: ByteBuffer) {
        if !identified {
            sniffed += String(decoding: buffer.readableBytesView.prefix(4096), as: UTF8.self)
            if let end = sniffed.range(of: "\r\n") ?? (sniffed.utf8.count >= 4096 ? sniffed.range(of: sniffed) : nil) {
                identified = true
                let line = sniffed[..<end.lowerBound]
                identity.withLockedValue { $0 = Self.client(inRequestLine: String(line)) }
                sniffed = ""
            }
        }
        if upstream == nil {
            beforeUpstream.append(buffer)
        } else {
            forward(buffer, upstream: true)
        }
    }

    /// `whalesim-client=ID` from `GET /path?a=b&whalesim-client=ID HTTP/1.1`.
    static func client(inRequestLine line: String) -> String? {
        let parts = line.split(separator: " ")
        guard parts.count >= 2, let q = parts[1].firstIndex(of: "?") else { return nil }
        for pair in parts[1][parts[1].index(after: q)...].split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1)
            if kv.count == 2, kv[0] == "whalesim-client" { return String(kv[1]) }
        }
        return nil
    }

    /// Sends a chunk on its way under the rules now in force.
    func forward(_ buffer: ByteBuffer, upstream isUp: Bool) {
        guard let proxy, !closed else { return }
        let rules = proxy.currentRules()
        let who = client
        if silenced || rules.isHalfOpen(who) {
            silenced = true
            proxy.count(discarded: 1)
            return
        }
        if rules.isPartitioned(who) {
            if isUp { up.held.append(buffer) } else { down.held.append(buffer) }
            proxy.count(held: 1)
            return
        }
        // What a partition held goes first: bytes never overtake each other.
        var chunks = isUp ? up.held : down.held
        if isUp { up.held = [] } else { down.held = [] }
        chunks.append(buffer)
        for chunk in chunks { enqueue(chunk, upstream: isUp, conditions: rules.conditions(who), proxy: proxy) }
        pump(isUp)
    }

    private func enqueue(_ buffer: ByteBuffer, upstream isUp: Bool, conditions c: ProxyConditions, proxy: FaultProxy) {
        proxy.count(up: isUp ? buffer.readableBytes : 0, down: isUp ? 0 : buffer.readableBytes)
        let now = NIODeadline.now()
        var at = now + .milliseconds(Int64(c.latencyMs + proxy.jitter(c.jitterMs)))
        var direction = isUp ? up : down
        if let rate = c.bytesPerSecond, rate > 0 {
            let transmit = TimeAmount.nanoseconds(Int64(buffer.readableBytes) * 1_000_000_000 / Int64(rate))
            at = max(at, direction.lastAt + transmit)
        }
        at = max(at, direction.lastAt) // never overtake the previous chunk
        direction.lastAt = at
        direction.queue.append((at, buffer))
        if isUp { up = direction } else { down = direction }
    }

    /// Writes every chunk whose time has come; schedules itself for the next one.
    private func pump(_ isUp: Bool) {
        var direction = isUp ? up : down
        direction.scheduled?.cancel()
        direction.scheduled = nil
        let target = isUp ? upstream : clientChannel
        let now = NIODeadline.now()
        var wrote = false
        while let first = direction.queue.first, first.at <= now {
            direction.queue.removeFirst()
            target?.write(first.buffer, promise: nil)
            wrote = true
        }
        if wrote { target?.flush() }
        if let next = direction.queue.first {
            direction.scheduled = loop.scheduleTask(deadline: next.at) { [self] in pump(isUp) }
        }
        if isUp { up = direction } else { down = direction }
    }

    /// A partition healed: what it held goes on its way, in order.
    func flushHeld() {
        loop.execute { [self] in
            guard let proxy, !closed, !silenced else { return }
            let rules = proxy.currentRules()
            guard !rules.isPartitioned(client) else { return }
            for isUp in [true, false] {
                let held = isUp ? up.held : down.held
                if isUp { up.held = [] } else { down.held = [] }
                for b in held { enqueue(b, upstream: isUp, conditions: rules.conditions(client), proxy: proxy) }
                pump(isUp)
            }
        }
    }

    /// Closes both sides; `reset` sends a TCP reset (SO_LINGER 0), as a dropped connection does.
    func close(reset: Bool) {
        loop.execute { [self] in
            guard !closed else { return }
            closed = true
            up.scheduled?.cancel()
            down.scheduled?.cancel()
            for ch in [clientChannel, upstream].compactMap({ $0 }) {
                if reset, let provider = ch as? any SocketOptionProvider {
                    provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in ch.close(promise: nil) }
                } else {
                    ch.close(promise: nil)
                }
            }
        }
    }
}
