import WhaleCrypto
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing
import WhaleLoad

/// A frame that arrives in the same read as the upgrade's answer: a server that refuses a socket
/// sends its `error` (and may close) at once, and on a busy machine the client reads the 101 and
/// the frame together. NIO's HTTP decoder dropped what followed the 101 in its buffer unless told
/// to forward it, so the frame was never seen ("received nothing").
@Suite struct LeanSocketFirstFrameTests {
    /// Answers the upgrade and sends a text frame in one write.
    final class UpgradeAndSpeak: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer
        var request = ""
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var buffer = unwrapInboundIn(data)
            request += buffer.readString(length: buffer.readableBytes) ?? ""
            guard request.contains("\r\n\r\n") else { return }
            let keyLine =
                request.split(separator: "\r\n").first { $0.lowercased().hasPrefix("sec-websocket-key:") } ?? ""
            let key =
                keyLine.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            let accept = Data(Digest.sha1(Array((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8)))
                .base64EncodedString()
            var out = context.channel.allocator.buffer(capacity: 256)
            out.writeString(
                "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: \(accept)\r\n\r\n"
            )
            let payload = Array("first words".utf8)
            out.writeBytes([0x81, UInt8(payload.count)] + payload)
            context.writeAndFlush(NIOAny(out), promise: nil)
            request = ""
        }
    }

    @Test func aFrameInTheSameReadAsTheUpgradeIsDelivered() async throws {
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { $0.pipeline.addHandler(UpgradeAndSpeak()) }
            .bind(host: "127.0.0.1", port: 0).get()
        defer { server.close(promise: nil) }
        let received = NIOLockedValueBox<[String]>([])
        let socket = LeanSocket(url: "ws://127.0.0.1:\(server.localAddress!.port!)/socket") { text in
            received.withLockedValue { $0.append(text) }
        }
        #expect(await socket.connected(timeout: .seconds(5)))
        let deadline = ContinuousClock.now + .seconds(5)
        while received.withLockedValue({ $0.isEmpty }), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(received.withLockedValue { $0 } == ["first words"])
        await socket.close()
    }
}
