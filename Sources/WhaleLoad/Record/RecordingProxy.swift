import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import WhaleSession
import WhaleTLS

/// A reverse proxy that records (`whalesim record`): real clients connect to it as to the server;
/// every byte goes on unchanged to the upstream (over TLS when the upstream is `https`), and both
/// directions are read as they pass (``ConnectionTap``) into the shared ``RecordingSink``.
///
/// ```swift
/// let sink = RecordingSink(writer: try SessionFileWriter(path: "s.jsonl", header: .init(source: "record")))
/// let proxy = try await RecordingProxy.start(port: 8081, upstream: .init(host: "127.0.0.1", port: 8080, tls: false),
///                                            target: .whaler, sink: sink)
/// ...
/// await proxy.stop(); try sink.finish()
/// ```
public final class RecordingProxy: Sendable {
    /// Where the proxy forwards to.
    public struct Upstream: Sendable {
        public var host: String
        public var port: Int
        public var tls: Bool
        public init(host: String, port: Int, tls: Bool) {
            self.host = host
            self.port = port
            self.tls = tls
        }
    }

    let upstream: Upstream
    let target: SessionEvent.Target
    let sink: RecordingSink
    private let listener = NIOLockedValueBox<(any Channel)?>(nil)
    let open = NIOLockedValueBox<[ObjectIdentifier: RecordedConnection]>([:])
    let tlsContext: TLSContext?

    private init(upstream: Upstream, target: SessionEvent.Target, sink: RecordingSink) throws {
        self.upstream = upstream
        self.target = target
        self.sink = sink
        tlsContext = upstream.tls ? try TLSContext.client() : nil
    }

    public static func start(
        host: String = "127.0.0.1", port: Int, upstream: Upstream, target: SessionEvent.Target, sink: RecordingSink,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws -> RecordingProxy {
        let proxy = try RecordingProxy(upstream: upstream, target: target, sink: sink)
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 1024)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { child in proxy.accept(child) }
            .bind(host: host, port: port).get()
        proxy.listener.withLockedValue { $0 = channel }
        return proxy
    }

    /// The port it listens on.
    public var port: Int { listener.withLockedValue { $0?.localAddress?.port ?? 0 } }

    /// Stops listening and closes every connection (what each had sent is recorded first).
    public func stop() async {
        try? await listener.withLockedValue { $0 }?.close()
        let all = open.withLockedValue { Array($0.values) }
        for c in all { c.client.close(promise: nil) }
        for c in all { try? await c.client.closeFuture.get() }
    }

    private func accept(_ child: any Channel) -> EventLoopFuture<Void> {
        let c = RecordedConnection(proxy: self, client: child, id: sink.nextConnection())
        open.withLockedValue { $0[ObjectIdentifier(c)] = c }
        return child.eventLoop.makeCompletedFuture {
            try child.pipeline.syncOperations.addHandler(RecordedConnection.ClientSide(c))
        }
    }

    func forget(_ c: RecordedConnection) { _ = open.withLockedValue { $0.removeValue(forKey: ObjectIdentifier(c)) } }
}

/// One recorded connection; its state lives on the client channel's loop (the upstream channel
/// is opened on the same loop), so the two directions are read in the order they passed.
final class RecordedConnection: @unchecked Sendable {
    unowned let proxy: RecordingProxy
    let client: any Channel
    private var upstream: (any Channel)?
    private var early: [ByteBuffer] = []
    private var tap: ConnectionTap
    private var closed = false
    private var reportedBroken = false

    init(proxy: RecordingProxy, client: any Channel, id: String) {
        self.proxy = proxy
        self.client = client
        tap = ConnectionTap(connection: id, target: proxy.target)
    }

    func connectUpstream() {
        let u = proxy.upstream
        let tls = proxy.tlsContext
        ClientBootstrap(group: client.eventLoop)
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .channelInitializer { [self] ch in
                ch.eventLoop.makeCompletedFuture {
                    if let tls {
                        try ch.pipeline.syncOperations.addHandler(
                            TLSHandler(context: tls, serverHostname: u.host))
                    }
                    try ch.pipeline.syncOperations.addHandler(ServerSide(self))
                }
            }
            .connect(host: u.host, port: u.port)
            .whenComplete { [self] result in
                switch result {
                case .success(let ch):
                    upstream = ch
                    if closed { ch.close(promise: nil); return }
                    for b in early { ch.write(b, promise: nil) }
                    early = []
                    ch.flush()
                case .failure:
                    client.close(promise: nil)
                }
            }
    }

    func fromClient(_ buffer: ByteBuffer) {
        let t = proxy.sink.now()
        proxy.sink.record { tracker in tap.fromClient(buffer.readableBytesView, t: t, tracker: &tracker) }
        checkBroken()
        if let upstream { upstream.writeAndFlush(buffer, promise: nil) } else { early.append(buffer) }
    }

    func fromServer(_ buffer: ByteBuffer) {
        let t = proxy.sink.now()
        proxy.sink.record { tracker in tap.fromServer(buffer.readableBytesView, t: t, tracker: &tracker) }
        checkBroken()
        client.writeAndFlush(buffer, promise: nil)
    }

    private func checkBroken() {
        if !reportedBroken, let why = tap.broken {
            reportedBroken = true
            proxy.sink.unreadable(tap.connection, why)
        }
    }

    func sideClosed() {
        guard !closed else { return }
        closed = true
        let t = proxy.sink.now()
        proxy.sink.record { tracker in tap.closed(t: t, tracker: &tracker) }
        client.close(promise: nil)
        upstream?.close(promise: nil)
        proxy.forget(self)
    }

    final class ClientSide: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer
        let c: RecordedConnection
        init(_ c: RecordedConnection) { self.c = c }
        func channelActive(context: ChannelHandlerContext) {
            c.connectUpstream()
            context.fireChannelActive()
        }
        func channelRead(context: ChannelHandlerContext, data: NIOAny) { c.fromClient(unwrapInboundIn(data)) }
        func channelInactive(context: ChannelHandlerContext) {
            c.sideClosed()
            context.fireChannelInactive()
        }
        func errorCaught(context: ChannelHandlerContext, error: any Error) { context.close(promise: nil) }
    }

    final class ServerSide: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer
        let c: RecordedConnection
        init(_ c: RecordedConnection) { self.c = c }
        func channelRead(context: ChannelHandlerContext, data: NIOAny) { c.fromServer(unwrapInboundIn(data)) }
        func channelInactive(context: ChannelHandlerContext) {
            c.sideClosed()
            context.fireChannelInactive()
        }
        func errorCaught(context: ChannelHandlerContext, error: any Error) { context.close(promise: nil) }
    }
}
