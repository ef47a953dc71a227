import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A TCP proxy for faults on real connections: the load runner puts it between its virtual
/// clients and the server. It adds latency and jitter (order kept), caps bandwidth, holds a
/// partitioned client's bytes both ways until the partition heals, resets connections, and
/// blackholes half-open ones (bytes vanish, no close reaches either side). A connection is
/// tagged with its client by the `whalesim-client=` query parameter of its first HTTP request
/// line (the websocket upgrade); the bytes are forwarded unchanged.
///
/// ```swift
/// let proxy = try await FaultProxy.start(upstreamHost: "127.0.0.1", upstreamPort: 8080, seed: 1)
/// // clients connect to ws://127.0.0.1:\(proxy.port)/socket?whalesim-client=c001
/// proxy.partition(["c001"]); ...; proxy.heal(["c001"])
/// ```
public final class FaultProxy: Sendable {
    public let port: Int
    private let channel: any Channel
    let upstreamHost: String
    let upstreamPort: Int
    private let rules = NIOLockedValueBox(ProxyRules())
    private let connections = NIOLockedValueBox<[ObjectIdentifier: ProxyConnection]>([:])
    private let statsBox = NIOLockedValueBox(ProxyStats())
    private let random: NIOLockedValueBox<UInt64>

    private init(channel: any Channel, upstreamHost: String, upstreamPort: Int, seed: UInt64) {
        self.channel = channel
        port = channel.localAddress?.port ?? 0
        self.upstreamHost = upstreamHost
        self.upstreamPort = upstreamPort
        random = NIOLockedValueBox(seed == 0 ? 0x9E37_79B9_7F4A_7C15 : seed)
    }

    public static func start(host: String = "127.0.0.1", port: Int = 0, upstreamHost: String, upstreamPort: Int, seed: UInt64,
                             group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) async throws -> FaultProxy {
        let holder = NIOLockedValueBox<FaultProxy?>(nil)
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 1024)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { child in
                guard let proxy = holder.withLockedValue({ $0 }) else { return child.close() }
                return proxy.accept(child)
            }
            .bind(host: host, port: port).get()
        let proxy = FaultProxy(channel: channel, upstreamHost: upstreamHost, upstreamPort: upstreamPort, seed: seed)
        holder.withLockedValue { $0 = proxy }
        return proxy
    }

    /// Stops listening and closes every proxied connection.
    public func stop() async {
        try? await channel.close()
        for c in connections.withLockedValue({ Array($0.values) }) { c.close(reset: false) }
    }

    public var stats: ProxyStats {
        var s = statsBox.withLockedValue { $0 }
        s.open = connections.withLockedValue { $0.count }
        return s
    }

    // MARK: Faults

    /// Shapes traffic of `clients` (nil: every connection without its own shaping).
    public func shape(_ conditions: ProxyConditions, clients: Set<String>? = nil) {
        rules.withLockedValue { r in
            if let clients { for c in clients { r.perClient[c] = conditions } } else { r.global = conditions }
        }
    }

    /// Back to no shaping for `clients` (nil: the global shaping and every client's).
    public func unshape(clients: Set<String>? = nil) {
        rules.withLockedValue { r in
            if let clients { for c in clients { r.perClient[c] = nil } } else { r.global = .none; r.perClient = [:] }
        }
    }

    /// Holds the bytes of `clients` (nil: everyone) both ways until ``heal(_:)``.
    public func partition(_ clients: Set<String>? = nil) {
        rules.withLockedValue { r in if let clients { r.partitioned.formUnion(clients) } else { r.partitionAll = true } }
    }

    /// Ends a partition and releases what was held, in order.
    public func heal(_ clients: Set<String>? = nil) {
        rules.withLockedValue { r in if let clients { r.partitioned.subtract(clients) } else { r.partitionAll = false; r.partitioned = [] } }
        release()
    }

    /// Resets the open connections of `clients` (nil: all).
    public func drop(_ clients: Set<String>? = nil) {
        let victims = connections.withLockedValue { $0.values.filter { c in clients.map { set in c.client.map(set.contains) == true } ?? true } }
        statsBox.withLockedValue { $0.dropped += victims.count }
        for c in victims { c.close(reset: true) }
    }

    /// From now on the bytes of `clients` (nil: all) vanish both ways; sockets stay open.
    public func halfOpen(_ clients: Set<String>? = nil) {
        rules.withLockedValue { r in if let clients { r.halfOpen.formUnion(clients) } else { r.halfOpenAll = true } }
    }

    public func endHalfOpen(_ clients: Set<String>? = nil) {
        rules.withLockedValue { r in if let clients { r.halfOpen.subtract(clients) } else { r.halfOpenAll = false; r.halfOpen = [] } }
    }

    /// Every fault off, held bytes released.
    public func healAll() {
        rules.withLockedValue { $0 = ProxyRules() }
        release()
    }

    private func release() {
        for c in connections.withLockedValue({ Array($0.values) }) { c.flushHeld() }
    }

    // MARK: Plumbing (used by ProxyConnection)

    func currentRules() -> ProxyRules { rules.withLockedValue { $0 } }

    func jitter(_ max: Int) -> Int {
        guard max > 0 else { return 0 }
        return random.withLockedValue { state in
            // SplitMix64: the proxy's own seeded stream.
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(max + 1))
        }
    }

    func count(up: Int = 0, down: Int = 0, held: Int = 0, discarded: Int = 0) {
        statsBox.withLockedValue { s in
            s.bytesUp += up
            s.bytesDown += down
            s.chunksHeld += held
            s.chunksDiscarded += discarded
        }
    }

    private func accept(_ child: any Channel) -> EventLoopFuture<Void> {
        let connection = ProxyConnection(proxy: self, client: child)
        connections.withLockedValue { $0[ObjectIdentifier(connection)] = connection }
        statsBox.withLockedValue { $0.accepted += 1 }
        child.closeFuture.whenComplete { [weak self] _ in
            connection.close(reset: false)
            _ = self?.connections.withLockedValue { $0.removeValue(forKey: ObjectIdentifier(connection)) }
        }
        return child.pipeline.addHandler(ProxyConnection.ClientSide(connection))
    }
}

extension FaultProxy {
    /// The client a connection names in its first HTTP request line (`whalesim-client=`), if any.
    public static func client(inRequestLine line: String) -> String? { ProxyConnection.client(inRequestLine: line) }
}
