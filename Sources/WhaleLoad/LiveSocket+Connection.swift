import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import WhaleTLS

/// A `ws://` or `wss://` URL taken apart for a connection.
struct WebSocketTarget: Sendable {
    var tls: Bool
    var host: String
    var port: Int
    /// The path and query the upgrade request asks for.
    var uri: String

    init(_ url: String) throws(WebSocketError) {
        guard let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased(),
            scheme == "ws" || scheme == "wss", let host = parts.host, !host.isEmpty
        else { throw WebSocketError("not a ws:// or wss:// URL: \(url)") }
        tls = scheme == "wss"
        self.host = host
        port = parts.port ?? (tls ? 443 : 80)
        let path = parts.percentEncodedPath.isEmpty ? "/" : parts.percentEncodedPath
        uri = path + (parts.percentEncodedQuery.map { "?\($0)" } ?? "")
    }
}

/// Why a websocket did not open or ended badly, in words.
struct WebSocketError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension LiveSocket {
    private enum Upgrade {
        case upgraded(NIOAsyncChannel<WebSocketFrame, WebSocketFrame>)
        case refused
    }

    /// One client TLS context for every `wss://` socket without a CA file of its own (the system's trust store).
    private static let systemTrust = Result { () throws(TLSError) in try TLSContext.client() }

    /// Connects and upgrades: the channel of frames, or an error that says why not.
    static func open(_ target: WebSocketTarget, headers: [(String, String)], maxFrameSize: Int, caFile: String?)
        async throws -> NIOAsyncChannel<WebSocketFrame, WebSocketFrame>
    {
        let tls: TLSContext? =
            if !target.tls { nil } else if let caFile { try TLSContext.client(caFile: caFile) } else {
                try systemTrust.get()
            }
        let upgrade: EventLoopFuture<Upgrade> = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .connect(host: target.host, port: target.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls {
                        try channel.pipeline.syncOperations.addHandler(
                            TLSHandler(context: tls, serverHostname: target.host))
                    }
                    let upgrader = NIOTypedWebSocketClientUpgrader<Upgrade>(maxFrameSize: maxFrameSize) { channel, _ in
                        channel.eventLoop.makeCompletedFuture {
                            // Fragmented messages arrive whole; control frames pass through.
                            try channel.pipeline.syncOperations.addHandler(
                                NIOWebSocketFrameAggregator(
                                    minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 1 << 16,
                                    maxAccumulatedFrameSize: maxFrameSize * 4))
                            return .upgraded(try NIOAsyncChannel(wrappingChannelSynchronously: channel))
                        }
                    }
                    var fields = HTTPHeaders()
                    let defaultPort = target.tls ? 443 : 80
                    fields.add(
                        name: "Host", value: target.port == defaultPort ? target.host : "\(target.host):\(target.port)")
                    for (name, value) in headers { fields.add(name: name, value: value) }
                    let configuration = NIOTypedHTTPClientUpgradeConfiguration<Upgrade>(
                        upgradeRequestHead: HTTPRequestHead(
                            version: .http1_1, method: .GET, uri: target.uri, headers: fields),
                        upgraders: [upgrader],
                        notUpgradingCompletionHandler: { channel in
                            channel.close(promise: nil)
                            return channel.eventLoop.makeSucceededFuture(.refused)
                        })
                    // Frames the server sends right behind its 101 (an error, a close) arrive in the
                    // same read: they go on to the websocket decoder, not away with the HTTP one.
                    var pipeline = NIOUpgradableHTTPClientPipelineConfiguration(upgradeConfiguration: configuration)
                    pipeline.leftOverBytesStrategy = .forwardBytes
                    return try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(
                        configuration: pipeline)
                }
            }
        switch try await upgrade.get() {
        case .upgraded(let channel): return channel
        case .refused: throw WebSocketError("the server refused the websocket upgrade")
        }
    }

    /// Sends what `outgoing` yields and reads until the socket ends: the server's close code and
    /// reason, or nil when the connection ended without one.
    static func converse(
        _ channel: NIOAsyncChannel<WebSocketFrame, WebSocketFrame>, outgoing: AsyncStream<Outgoing>,
        pong: AsyncStream<Outgoing>.Continuation, maxMessage: Int, onText: @escaping @Sendable (String) -> Void
    ) async throws -> (code: Int, reason: String?)? {
        try await channel.executeThenClose { inbound, outbound in
            let raw = channel.channel
            let closing = NIOLockedValueBox(false)
            let writer = Task {
                for await item in outgoing {
                    let frame: WebSocketFrame
                    switch item {
                    case .text(let text):
                        frame = WebSocketFrame(
                            fin: true, opcode: .text, maskKey: .random(), data: ByteBuffer(string: text))
                    case .binary(let text):
                        frame = WebSocketFrame(
                            fin: true, opcode: .binary, maskKey: .random(), data: ByteBuffer(string: text))
                    case .pong(let data):
                        frame = WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: data)
                    }
                    try? await outbound.write(frame)
                }
                guard !Task.isCancelled else { return }
                closing.withLockedValue { $0 = true }
                // Our close: a normal closure; the server's answering close ends the read loop, or
                // the connection goes after a few seconds without one.
                var code = raw.allocator.buffer(capacity: 2)
                code.write(webSocketErrorCode: .normalClosure)
                try? await outbound.write(
                    WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: code))
                try? await Task.sleep(for: .seconds(3))
                if !Task.isCancelled { raw.close(promise: nil) }
            }
            defer { writer.cancel() }
            do {
                for try await frame in inbound {
                    switch frame.opcode {
                    case .text, .binary:
                        guard frame.data.readableBytes <= maxMessage else {
                            throw WebSocketError("a message past \(maxMessage) bytes")
                        }
                        onText(String(buffer: frame.unmaskedData))
                    case .ping:
                        pong.yield(.pong(frame.unmaskedData))
                    case .connectionClose:
                        var data = frame.unmaskedData
                        let code = data.readWebSocketErrorCode().map { Int(UInt16(webSocketErrorCode: $0)) } ?? 1005
                        let reason = data.readableBytes > 0 ? data.readString(length: data.readableBytes) : nil
                        // Echo it (RFC 6455 §5.5.1) unless it answers our own.
                        if closing.withLockedValue({ $0 }) { return (code, reason) }
                        var echo = raw.allocator.buffer(capacity: 2)
                        echo.write(webSocketErrorCode: WebSocketErrorCode(codeNumber: code))
                        try? await outbound.write(
                            WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: echo))
                        return (code, reason)
                    default:
                        continue
                    }
                }
            } catch let error as WebSocketError {
                throw error
            } catch {
                // A reset or a protocol error after the upgrade: ended without a close frame.
                return nil
            }
            return nil
        }
    }
}
