import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import WhaleCore

/// A TCP proxy for faults on real connections: the load runner puts it between its virtual
/// clients and the server. It adds latency and jitter (order kept), caps bandwidth, holds a
/// partitioned client's bytes both ways until the partition heals, resets connections, and
/// blackholes half-open ones (bytes vanish, no close reaches either side). A connection is
/// tagged with its client by the `whalesim-client=` query parameter of its first HTTP request
/// line (the websocket upgrade); the bytes are forwarded unchanged. Every fault method is
/// thread-safe and takes effect from the next chunk; `clients: nil` means every connection.
///
/// ```swift
/// let proxy = try await FaultProxy.start(upstreamHost: "127.0.0.1", upstreamPort: 8080, seed: 1)
/// // clients connect to ws://127.0.0.1:\(proxy.port)/socket?whalesim-client=c001
/// proxy.shape(ProxyConditions(latencyMs: 50, jitterMs: 20), clients: ["c001"])
/// proxy.partition(clients: ["c001"]); ...; proxy.heal(clients: ["c001"])
/// await proxy.stop()
/// ```
public final class FaultProxy: Sendable {
    let upstreamHost: String
    let upstreamPort: Int
    private let listener = NIOLockedValueBox<(any Channel)?>(nil)
    let rules = NIOLockedValueBox(ProxyRules())
    let connections = NIOLockedValueBox<[ObjectIdentifier: ProxyConnection]>([:])
    private let counters = NIOLockedValueBox(ProxyStats())
    private let random: NIOLockedValueBox<SplitMix64>

    private init(upstreamHost: String, upstreamPort: Int, seed: UInt64) {
        self.upstreamHost = upstreamHost
        self.upstreamPort = upstreamPort
        random = NIOLockedValueBox(SplitMix64(seed: seed))
    }

    /// Listens on `host:port` (0: any free port, see ``port``) and forwards every accepted
    /// connection to `upstreamHost:upstreamPort`; `seed` drives the jitter.
    public static func start(
        host: String = "127.0.0.1", port: Int = 0, upstreamHost: String, upstreamPort: Int, seed: UInt64,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws -> FaultProxy {
        let proxy = FaultProxy(upstreamHost: upstreamHost, upstreamPort: upstreamPort, seed: seed)
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 1024)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { child in proxy.accept(child) }
            .bind(host: host, port: port).get()
        proxy.listener.withLockedValue { $0 = channel }
        return proxy
    }

    /// The port the proxy listens on.
    public var port: Int { listener.withLockedValue { $0?.localAddress?.port ?? 0 } }

    /// Stops listening and closes every proxied connection (both sides), waiting for them.
    public func stop() async {
        try? await listener.withLockedValue { $0 }?.close()
        let open = connections.withLockedValue { Array($0.values) }
        for c in open { c.close(reset: false) }
        for c in open { try? await c.clientChannel.closeFuture.get() }
    }

    /// What the proxy has carried so far.
    public var stats: ProxyStats {
        var s = counters.withLockedValue { $0 }
        s.connectionsOpen = connections.withLockedValue { $0.count }
        return s
    }

    // MARK: Plumbing (used by ProxyConnection)

    func currentRules() -> ProxyRules { rules.withLockedValue { $0 } }

    func jitter(_ max: Int) -> Int {
        max > 0 ? random.withLockedValue { $0.upTo(max) } : 0
    }

    func count(up: Int = 0, down: Int = 0, held: Int = 0, discarded: Int = 0, dropped: Int = 0) {
        counters.withLockedValue { s in
            s.bytesUpstream += up
            s.bytesDownstream += down
            s.chunksHeld += held
            s.chunksDiscarded += discarded
            s.connectionsDropped += dropped
        }
    }

    /// Open connections that `clients` names (nil: all of them).
    func matching(_ clients: Set<String>?) -> [ProxyConnection] {
        let all = connections.withLockedValue { Array($0.values) }
        guard let clients else { return all }
        return all.filter { c in c.client.map(clients.contains) == true }
    }

    /// A connection closed both sides. Not on the client channel's close: a side that closed
    /// during a half-open window leaves the other open, and healing must still find it.
    func forget(_ connection: ProxyConnection) {
        _ = connections.withLockedValue { $0.removeValue(forKey: ObjectIdentifier(connection)) }
    }

    private func accept(_ child: any Channel) -> EventLoopFuture<Void> {
        let connection = ProxyConnection(proxy: self, client: child)
        let id = ObjectIdentifier(connection)
        connections.withLockedValue { $0[id] = connection }
        counters.withLockedValue { $0.connectionsAccepted += 1 }
        return child.eventLoop.makeCompletedFuture {
            try child.pipeline.syncOperations.addHandler(ProxyConnection.ClientSide(connection))
        }
    }
}
