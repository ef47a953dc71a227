import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A plain TCP echo server for the proxy's tests; it remembers its connections so a test can
/// close them from the server's side and count the closes it saw.
final class EchoServer: Sendable {
    private final class Echo: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            context.writeAndFlush(data, promise: nil)
        }
    }

    private let listener: any Channel
    private let children: NIOLockedValueBox<[any Channel]>
    private let closes: NIOLockedValueBox<Int>

    private init(listener: any Channel, children: NIOLockedValueBox<[any Channel]>, closes: NIOLockedValueBox<Int>) {
        self.listener = listener
        self.children = children
        self.closes = closes
    }

    static func start() async throws -> EchoServer {
        let children = NIOLockedValueBox<[any Channel]>([])
        let closes = NIOLockedValueBox(0)
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { child in
                children.withLockedValue { $0.append(child) }
                child.closeFuture.whenComplete { _ in closes.withLockedValue { $0 += 1 } }
                return child.eventLoop.makeCompletedFuture { try child.pipeline.syncOperations.addHandler(Echo()) }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return EchoServer(listener: listener, children: children, closes: closes)
    }

    var port: Int { listener.localAddress?.port ?? 0 }
    /// Connections the server saw closed (by either side).
    var closeCount: Int { closes.withLockedValue { $0 } }

    /// Closes every connection from the server's side.
    func closeConnections() async {
        for child in children.withLockedValue({ $0 }) { try? await child.close() }
    }

    func stop() async {
        await closeConnections()
        try? await listener.close()
    }
}
