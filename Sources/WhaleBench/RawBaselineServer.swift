import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import WhaleServer

/// The yardstick for `whalesim bench server`: a websocket server on the same stack as the
/// reference server (SwiftNIO's HTTP/1.1 server, its websocket upgrader and frame codec) that does
/// no work: `echo` sends every message back, `broadcast` sends it to every socket of the same
/// `ObjectId` group, sender included. The reference server's figures are quoted as ratios of
/// these, measured in the same run.
public final class RawBaselineServer: Sendable {
    public enum Mode: String, Sendable, CaseIterable { case echo, broadcast }

    public let mode: Mode
    private let listener: any Channel
    private let groups: Groups
    public var port: Int { listener.localAddress?.port ?? -1 }

    private init(mode: Mode, listener: any Channel, groups: Groups) {
        self.mode = mode
        self.listener = listener
        self.groups = groups
    }

    public static func start(mode: Mode, host: String = "127.0.0.1", port: Int = 0) async throws -> RawBaselineServer {
        let groups = Groups()
        do {
            let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.backlog, value: 4096)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    let upgrader = NIOWebSocketServerUpgrader(
                        maxFrameSize: 1 << 16, automaticErrorHandling: true,
                        shouldUpgrade: { channel, head in
                            channel.eventLoop.makeSucceededFuture(
                                head.uri.hasPrefix("/socket") ? HTTPHeaders() : nil)
                        },
                        upgradePipelineHandler: { channel, head in
                            let key = head.headers.first(name: "ObjectId") ?? "-"
                            return channel.eventLoop.makeCompletedFuture {
                                try channel.pipeline.syncOperations.addHandler(
                                    RawSocketHandler(mode: mode, group: key, groups: groups))
                            }
                        })
                    return channel.pipeline.configureHTTPServerPipeline(
                        withServerUpgrade: (upgraders: [upgrader], completionHandler: { _ in }))
                }
                .bind(host: host, port: port).get()
            return RawBaselineServer(mode: mode, listener: listener, groups: groups)
        } catch {
            throw ServerStartError(message: "raw server: \(error)")
        }
    }

    /// Until the listener closes (the bench runs this in its own process and ends it with SIGTERM).
    public func waitUntilStopped() async {
        try? await listener.closeFuture.get()
    }

    public func stop() async {
        try? await listener.close()
        await groups.closeAll()
    }
}

/// The open sockets by `ObjectId` group.
private final class Groups: Sendable {
    private let members = NIOLockedValueBox([String: [ObjectIdentifier: any Channel]]())

    func join(_ key: String, _ channel: any Channel) {
        members.withLockedValue { $0[key, default: [:]][ObjectIdentifier(channel)] = channel }
    }
    func leave(_ key: String, _ channel: any Channel) {
        _ = members.withLockedValue { $0[key]?.removeValue(forKey: ObjectIdentifier(channel)) }
    }
    func members(of key: String) -> [any Channel] { members.withLockedValue { Array(($0[key] ?? [:]).values) } }
    func closeAll() async {
        for channel in members.withLockedValue({ $0.values.flatMap(\.values) }) { try? await channel.close() }
    }
}

/// One raw socket: text and binary messages echoed (as text) or broadcast; pings answered; a close echoed.
private final class RawSocketHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    let mode: RawBaselineServer.Mode
    let group: String
    let groups: Groups
    private var partial: ByteBuffer?

    init(mode: RawBaselineServer.Mode, group: String, groups: Groups) {
        self.mode = mode
        self.group = group
        self.groups = groups
    }

    func handlerAdded(context: ChannelHandlerContext) { groups.join(group, context.channel) }

    func channelInactive(context: ChannelHandlerContext) {
        groups.leave(group, context.channel)
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text, .binary, .continuation:
            var message = frame.unmaskedData
            if var head = partial, frame.opcode == .continuation {
                head.writeBuffer(&message)
                message = head
            }
            partial = frame.fin ? nil : message
            guard frame.fin else { return }
            let reply = WebSocketFrame(fin: true, opcode: .text, data: message)
            switch mode {
            case .echo: context.writeAndFlush(wrapOutboundOut(reply), promise: nil)
            case .broadcast: for member in groups.members(of: group) { member.writeAndFlush(reply, promise: nil) }
            }
        case .ping:
            context.writeAndFlush(
                wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)), promise: nil)
        case .connectionClose:
            context.writeAndFlush(
                wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: frame.unmaskedData))
            )
            .whenComplete { [channel = context.channel] _ in channel.close(promise: nil) }
        default:
            break
        }
    }
}
