import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import Testing
import WhaleCrypto
import WhaleLoad
import WhaleTLS

/// `wss://` and TLS on the system's OpenSSL (WhaleTLS): a NIO echo websocket server behind a
/// server `TLSHandler` with a throwaway CA's certificate. What each client gets: trusted, it
/// talks; not trusting the CA, or asking for another name, the handshake fails with OpenSSL's
/// reason; a client speaking plain HTTP to the TLS port is closed, nothing served.
@Suite struct LiveSocketTLSTests {
    /// The echo server, its port and the CA file that signed its certificate.
    final class EchoServer {
        let channel: any Channel
        let caFile: URL
        var port: Int { channel.localAddress!.port! }

        init() async throws {
            let now = Int64(Date().timeIntervalSince1970)
            let made = try CertificateAuthority.make(notBefore: now - 3600, notAfter: now + 86400)
            caFile = FileManager.default.temporaryDirectory.appendingPathComponent(
                "whalesim-tls-\(UUID().uuidString).pem")
            try Data(made.caPEM.utf8).write(to: caFile)
            let context = try TLSContext.server(
                certificatePEM: made.leafPEM, chainPEM: made.caPEM, privateKeyPEM: made.leafKeyPEM)
            channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { child in
                    let upgrader = NIOWebSocketServerUpgrader(
                        shouldUpgrade: { ch, _ in ch.eventLoop.makeSucceededFuture(HTTPHeaders()) },
                        upgradePipelineHandler: { ch, _ in ch.pipeline.addHandler(Echo()) })
                    return child.eventLoop.makeCompletedFuture {
                        try child.pipeline.syncOperations.addHandler(TLSHandler(context: context))
                    }.flatMap {
                        child.pipeline.configureHTTPServerPipeline(
                            withServerUpgrade: (upgraders: [upgrader], completionHandler: { _ in }))
                    }
                }
                .bind(host: "127.0.0.1", port: 0).get()
        }

        func stop() async {
            try? await channel.close()
            try? FileManager.default.removeItem(at: caFile)
        }
    }

    /// Echoes text frames; answers a close with a close.
    final class Echo: ChannelInboundHandler, Sendable {
        typealias InboundIn = WebSocketFrame
        typealias OutboundOut = WebSocketFrame
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let frame = unwrapInboundIn(data)
            switch frame.opcode {
            case .text:
                context.writeAndFlush(
                    wrapOutboundOut(WebSocketFrame(fin: true, opcode: .text, data: frame.unmaskedData)), promise: nil)
            case .connectionClose:
                var code = context.channel.allocator.buffer(capacity: 2)
                code.write(webSocketErrorCode: .normalClosure)
                context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: code)))
                    .whenComplete { _ in context.close(promise: nil) }
            default: break
            }
        }
    }

    @Test func aTrustedWssServerEchoesAndClosesNormally() async throws {
        let server = try await EchoServer()
        let got = NIOLockedValueBox<[String]>([])
        for host in ["127.0.0.1", "localhost"] {
            let socket = LiveSocket(url: "wss://\(host):\(server.port)/echo", caFile: server.caFile.path) { text in
                got.withLockedValue { $0.append(text) }
            }
            #expect(await socket.connected(timeout: .seconds(10)), "\(host): \(String(describing: socket.ending))")
            socket.send("hello over \(host)")
            for _ in 0..<200 where !got.withLockedValue({ $0.contains("hello over \(host)") }) {
                try await Task.sleep(for: .milliseconds(10))
            }
            await socket.close()
            #expect(socket.ending?.closeCode == 1000, "\(String(describing: socket.ending))")
        }
        #expect(got.withLockedValue { $0 } == ["hello over 127.0.0.1", "hello over localhost"])
        await server.stop()
    }

    @Test func aServerSignedByAnUntrustedCAIsRefused() async throws {
        let server = try await EchoServer()
        let socket = LiveSocket(url: "wss://127.0.0.1:\(server.port)/echo") { _ in }
        #expect(await socket.connected(timeout: .seconds(10)) == false)
        #expect(
            socket.ending?.error?.contains("certificate verify failed") == true, "\(String(describing: socket.ending))")
        await server.stop()
    }

    @Test func aCertificateForAnotherNameIsRefused() async throws {
        let server = try await EchoServer()
        let failed = NIOLockedValueBox<String?>(nil)
        let tls = try TLSContext.client(caFile: server.caFile.path)
        let client = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { ch in
                ch.eventLoop.makeCompletedFuture {
                    try ch.pipeline.syncOperations.addHandler(
                        TLSHandler(context: tls, serverHostname: "whalesim.invalid"))
                    try ch.pipeline.syncOperations.addHandler(ErrorCatcher(failed))
                }
            }
            .connect(host: "127.0.0.1", port: server.port).get()
        try await client.closeFuture.get()  // the handler closes it on failure
        #expect(
            failed.withLockedValue { $0 }?.contains("certificate verify failed") == true,
            "\(String(describing: failed.withLockedValue { $0 }))")
        await server.stop()
    }

    @Test func plainHTTPToTheTLSPortIsClosedUnanswered() async throws {
        let server = try await EchoServer()
        let received = NIOLockedValueBox(0)
        let client = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { ch in
                ch.eventLoop.makeCompletedFuture { try ch.pipeline.syncOperations.addHandler(ByteCounter(received)) }
            }
            .connect(host: "127.0.0.1", port: server.port).get()
        try await client.writeAndFlush(ByteBuffer(string: "GET /echo HTTP/1.1\r\nHost: x\r\n\r\n"))
        try await client.closeFuture.get()
        // An alert at most (a handful of bytes): never an HTTP answer.
        #expect(received.withLockedValue { $0 } < 64)
        await server.stop()
    }

    final class ErrorCatcher: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let box: NIOLockedValueBox<String?>
        init(_ box: NIOLockedValueBox<String?>) { self.box = box }
        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            box.withLockedValue { $0 = "\(error)" }
        }
    }

    final class ByteCounter: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let box: NIOLockedValueBox<Int>
        init(_ box: NIOLockedValueBox<Int>) { self.box = box }
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let n = unwrapInboundIn(data).readableBytes
            box.withLockedValue { $0 += n }
        }
    }
}
