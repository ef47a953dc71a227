import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import Testing
import WhaleLoad

/// LeanSocket reads RFC 6455 frames itself (``LeanFrames``). These tests give it a server that
/// does NIO's handshake and then writes scripted raw bytes, one chunk per flush with a pause
/// between, so frames arrive split where the script splits them. What each input gets:
/// - frames split anywhere (mid-header, mid-length, mid-payload), 7-, 16- and 64-bit lengths,
///   fragments with a ping between them: every message delivered whole and in order, the ping
///   answered with a masked pong carrying its payload;
/// - a masked frame from the server: the socket ends ("masked"), the server gets close 1002;
/// - a frame over `maxFrameSize`: the socket ends ("over the limit"), close 1009;
/// - reserved bits, an unknown opcode, a continuation with no message: ends, close 1002;
/// - a close from the server: the socket ends with its code and reason, the close echoed.
/// And what the client writes is masked, with the payload intact under the mask.
@Suite struct LeanSocketFrameTests {
    @Test func framesSplitAnywhereAreDeliveredWholeAndInOrder() async throws {
        let (script, messages) = Self.splitAnywhereScript()
        let server = try await ScriptServer.start(script: script)
        defer { server.stop() }
        let received = NIOLockedValueBox<[String]>([])
        let socket = LeanSocket(url: server.url, maxFrameSize: 1 << 20) { text in
            received.withLockedValue { $0.append(text) }
        }
        #expect(await socket.connected(timeout: .seconds(5)))
        try await Self.waitUntil { received.withLockedValue { $0.count } == 5 }
        #expect(received.withLockedValue { $0 } == messages)
        socket.send("from the client: ü")
        try await Self.waitUntil { server.clientFrames().count >= 2 }
        let frames = server.clientFrames()
        #expect(
            frames.contains { $0.opcode == 0xA && $0.payload == Array("p1".utf8) },
            "the ping is answered with its payload")
        #expect(frames.contains { $0.opcode == 0x1 && $0.payload == Array("from the client: ü".utf8) })
        #expect(frames.allSatisfy { $0.masked }, "every client frame is masked")
        #expect(socket.ending == nil)
        await socket.close()
    }

    @Test func aMaskedFrameFromTheServerEndsTheSocketWith1002() async throws {
        try await Self.expectViolation(
            script: [Self.frame(.text, Array("x".utf8), masked: true)], maxFrameSize: 1 << 20,
            closeCode: 1002, error: "masked")
    }

    @Test func aFrameOverTheLimitEndsTheSocketWith1009() async throws {
        try await Self.expectViolation(
            script: [Self.frame(.text, Array(repeating: 65, count: 2_000))], maxFrameSize: 1_000,
            closeCode: 1009, error: "over the limit")
    }

    @Test func reservedBitsUnknownOpcodesAndStrayContinuationsEndTheSocketWith1002() async throws {
        var reserved = Self.frame(.text, Array("x".utf8))
        reserved[0] |= 0x40
        try await Self.expectViolation(
            script: [reserved], maxFrameSize: 1 << 20, closeCode: 1002, error: "reserved bits")
        var unknown = Self.frame(.text, Array("x".utf8))
        unknown[0] = 0x80 | 0x3
        try await Self.expectViolation(
            script: [unknown], maxFrameSize: 1 << 20, closeCode: 1002, error: "unknown opcode")
        try await Self.expectViolation(
            script: [Self.frame(.continuation, Array("x".utf8))], maxFrameSize: 1 << 20, closeCode: 1002,
            error: "continuation")
    }

    @Test func aCloseFromTheServerEndsTheSocketWithItsCodeAndIsEchoed() async throws {
        let server = try await ScriptServer.start(script: [Self.frame(.close, [0x03, 0xE9] + Array("going away".utf8))])
        defer { server.stop() }
        let socket = LeanSocket(url: server.url) { _ in }
        #expect(await socket.connected(timeout: .seconds(5)))
        await socket.waitEnded()
        #expect(socket.ending?.closeCode == 1001)
        #expect(socket.ending?.reason == "going away")
        try await Self.waitUntil { server.clientFrames().contains { $0.opcode == 0x8 } }
        #expect(server.clientFrames().first { $0.opcode == 0x8 }?.payload.prefix(2) == [0x03, 0xE9])
    }

    // MARK: helpers

    /// Frames split anywhere (a byte a read, inside an extended length, mid-payload; 7-, 16- and
    /// 64-bit lengths) and a message in two fragments with a ping between them, all in one read;
    /// and the messages a client must deliver from it, in order.
    static func splitAnywhereScript() -> (script: [[UInt8]], messages: [String]) {
        let medium = String(repeating: "m", count: 300), large = String(repeating: "L", count: 70_000)
        var script: [[UInt8]] = frame(.text, Array("hello".utf8)).map { [$0] }
        let second = frame(.text, Array(medium.utf8))
        script += [Array(second[0..<3]), Array(second[3...])]
        let third = frame(.text, Array(large.utf8))
        script += [Array(third[0..<5]), Array(third[5..<40_000]), Array(third[40_000...])]
        script.append(
            frame(.text, Array("frag".utf8), fin: false) + frame(.ping, Array("p1".utf8))
                + frame(.continuation, Array("ment".utf8)) + frame(.text, Array("héllo".utf8)))
        return (script, ["hello", medium, large, "fragment", "héllo"])
    }

    enum Op: UInt8 { case continuation = 0, text = 1, close = 8, ping = 9, pong = 10 }

    /// A server frame (unmasked unless `masked`).
    static func frame(_ op: Op, _ payload: [UInt8], fin: Bool = true, masked: Bool = false) -> [UInt8] {
        var out: [UInt8] = [(fin ? 0x80 : 0) | op.rawValue]
        let maskBit: UInt8 = masked ? 0x80 : 0
        if payload.count < 126 {
            out.append(maskBit | UInt8(payload.count))
        } else if payload.count <= 0xFFFF {
            out.append(maskBit | 126)
            out += [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            out.append(maskBit | 127)
            out += (0..<8).reversed().map { UInt8((payload.count >> ($0 * 8)) & 0xFF) }
        }
        if masked {
            let key: [UInt8] = [1, 2, 3, 4]
            return out + key + payload.enumerated().map { $0.element ^ key[$0.offset & 3] }
        }
        return out + payload
    }

    static func expectViolation(script: [[UInt8]], maxFrameSize: Int, closeCode: UInt16, error: String) async throws {
        let server = try await ScriptServer.start(script: script)
        defer { server.stop() }
        let delivered = NIOLockedValueBox(0)
        let socket = LeanSocket(url: server.url, maxFrameSize: maxFrameSize) { _ in
            delivered.withLockedValue { $0 += 1 }
        }
        #expect(await socket.connected(timeout: .seconds(5)))
        await socket.waitEnded()
        let ending = try #require(socket.ending)
        #expect(ending.error?.contains(error) == true, "\(ending)")
        #expect(delivered.withLockedValue { $0 } == 0, "nothing of a broken stream is delivered")
        try await waitUntil { server.clientFrames().contains { $0.opcode == 0x8 } }
        let close = try #require(server.clientFrames().first { $0.opcode == 0x8 })
        #expect(close.payload.prefix(2) == [UInt8(closeCode >> 8), UInt8(closeCode & 0xFF)])
    }

    static func waitUntil(_ condition: @Sendable () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition() {
            guard ContinuousClock.now < deadline else { Issue.record("timed out"); return }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}

/// A websocket server for one test: NIO's handshake, then the script's chunks written raw, one
/// flush each, 20 ms apart; what the client sends is kept as raw frames, unmasked.
final class ScriptServer: Sendable {
    struct ClientFrame: Sendable {
        var opcode: UInt8
        var masked: Bool
        var payload: [UInt8]
    }

    let url: String
    private let channel: any Channel
    private let received: NIOLockedValueBox<[UInt8]>

    private init(url: String, channel: any Channel, received: NIOLockedValueBox<[UInt8]>) {
        self.url = url
        self.channel = channel
        self.received = received
    }

    static func start(script: [[UInt8]]) async throws -> ScriptServer {
        let received = NIOLockedValueBox<[UInt8]>([])
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)  // each chunk its own segment
            .childChannelInitializer { channel in
                let upgrader = NIOWebSocketServerUpgrader(
                    maxFrameSize: 1 << 20, automaticErrorHandling: false,
                    shouldUpgrade: { channel, _ in channel.eventLoop.makeSucceededFuture(HTTPHeaders()) },
                    upgradePipelineHandler: { channel, _ in
                        // First in the pipeline, under NIO's frame handlers: this server writes and
                        // reads raw bytes (and passes nothing on).
                        do {
                            try channel.pipeline.syncOperations.addHandler(
                                ScriptHandler(script: script, received: received), position: .first)
                            return channel.eventLoop.makeSucceededVoidFuture()
                        } catch {
                            return channel.eventLoop.makeFailedFuture(error)
                        }
                    })
                return channel.pipeline.configureHTTPServerPipeline(
                    withServerUpgrade: (upgraders: [upgrader], completionHandler: { _ in }))
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return ScriptServer(url: "ws://127.0.0.1:\(channel.localAddress!.port!)/", channel: channel, received: received)
    }

    func stop() { channel.close(promise: nil) }

    /// The client's frames so far, unmasked.
    func clientFrames() -> [ClientFrame] {
        let bytes = received.withLockedValue { $0 }
        var frames: [ClientFrame] = []
        var i = 0
        while i + 2 <= bytes.count {
            let opcode = bytes[i] & 0x0F, masked = bytes[i + 1] & 0x80 != 0
            var length = Int(bytes[i + 1] & 0x7F), at = i + 2
            if length == 126 {
                guard at + 2 <= bytes.count else { break }
                length = Int(bytes[at]) << 8 | Int(bytes[at + 1]); at += 2
            } else if length == 127 {
                guard at + 8 <= bytes.count else { break }
                length = bytes[at..<at + 8].reduce(0) { $0 << 8 | Int($1) }; at += 8
            }
            let key = masked ? Array(bytes[at..<min(at + 4, bytes.count)]) : []
            at += key.count
            guard at + length <= bytes.count else { break }
            let payload = bytes[at..<at + length].enumerated().map {
                masked ? $0.element ^ key[$0.offset & 3] : $0.element
            }
            frames.append(ClientFrame(opcode: opcode, masked: masked, payload: payload))
            i = at + length
        }
        return frames
    }

    final class ScriptHandler: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        let script: [[UInt8]]
        let received: NIOLockedValueBox<[UInt8]>
        init(script: [[UInt8]], received: NIOLockedValueBox<[UInt8]>) {
            self.script = script
            self.received = received
        }

        func handlerAdded(context: ChannelHandlerContext) {
            let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
            for (n, chunk) in script.enumerated() {
                context.eventLoop.scheduleTask(in: .milliseconds(Int64(50 + 20 * n))) {
                    let context = loopBound.value
                    context.writeAndFlush(NIOAny(context.channel.allocator.buffer(bytes: chunk)), promise: nil)
                }
            }
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let bytes = unwrapInboundIn(data)
            received.withLockedValue { $0 += Array(bytes.readableBytesView) }
        }
    }
}
