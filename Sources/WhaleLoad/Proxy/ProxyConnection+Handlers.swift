import NIOCore

extension ProxyConnection {
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

        func channelInactive(context: ChannelHandlerContext) {
            connection.sideClosed(client: true)
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }
    }

    /// The handler on the upstream channel: bytes from the server go to the client.
    final class ServerSide: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer
        let connection: ProxyConnection
        init(_ c: ProxyConnection) { connection = c }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            connection.fromServer(unwrapInboundIn(data))
        }

        func channelInactive(context: ChannelHandlerContext) {
            connection.sideClosed(client: false)
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }
    }
}
