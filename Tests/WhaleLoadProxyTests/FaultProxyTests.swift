import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing
import WhaleLoad
import WhalesimTesting

/// The TCP fault proxy between a test client and an echo server: bytes pass unchanged and in
/// order; latency, bandwidth, partitions, resets and half-open connections do what they say,
/// to the chosen clients only. Time bounds are lower bounds only (no timed pass/fail races).
@Suite(.serialized) struct FaultProxyTests {
    final class Echo: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        func channelRead(context: ChannelHandlerContext, data: NIOAny) { context.writeAndFlush(data, promise: nil) }
    }

    final class Collector: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer
        let bytes = NIOLockedValueBox<[UInt8]>([])
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let b = unwrapInboundIn(data)
            bytes.withLockedValue { $0 += Array(b.readableBytesView) }
        }
    }

    struct Client {
        var channel: any Channel
        var collector: Collector
        var received: [UInt8] { collector.bytes.withLockedValue { $0 } }
        func send(_ bytes: [UInt8]) { channel.writeAndFlush(ByteBuffer(bytes: bytes), promise: nil) }
        /// Waits until `count` bytes came back (or `timeout`); returns them.
        func await(_ count: Int, timeout: Duration = .seconds(10)) async -> [UInt8] {
            let deadline = ContinuousClock.now + timeout
            while received.count < count, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(5)) }
            return received
        }
    }

    static func echoServer() async throws -> any Channel {
        try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { $0.pipeline.addHandler(Echo()) }
            .bind(host: "127.0.0.1", port: 0).get()
    }

    /// Connects through the proxy and sends the request line that names the client.
    static func client(_ proxy: FaultProxy, name: String) async throws -> (Client, [UInt8]) {
        let collector = Collector()
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { $0.pipeline.addHandler(collector) }
            .connect(host: "127.0.0.1", port: proxy.port).get()
        let c = Client(channel: channel, collector: collector)
        let hello = Array("GET /socket?protocol=2&whalesim-client=\(name) HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
        c.send(hello)
        _ = await c.await(hello.count)
        return (c, hello)
    }

    func setUp() async throws -> (any Channel, FaultProxy) {
        let echo = try await Self.echoServer()
        let proxy = try await FaultProxy.start(upstreamHost: "127.0.0.1", upstreamPort: echo.localAddress!.port!, seed: 7)
        return (echo, proxy)
    }

    @Test func bytesPassUnchangedAndInOrder() async throws {
        let (echo, proxy) = try await setUp()
        let (c, hello) = try await Self.client(proxy, name: "c1")
        var rng = SplitMix64(seed: 42)
        var sent = hello
        for _ in 0..<50 {
            let chunk = (0..<4096).map { _ in UInt8.random(in: 0...255, using: &rng) }
            c.send(chunk)
            sent += chunk
        }
        let got = await c.await(sent.count)
        #expect(got == sent)
        proxy.shape(ProxyConditions(latencyMs: 2, jitterMs: 20))
        var more: [UInt8] = []
        for i in 0..<200 { let b = Array("m\(i);".utf8); c.send(b); more += b }
        let withJitter = await c.await(sent.count + more.count)
        #expect(Array(withJitter.dropFirst(sent.count)) == more, "jitter never reorders")
        #expect(proxy.stats.bytesUp >= sent.count + more.count)
        try await c.channel.close()
        await proxy.stop()
        try await echo.close()
    }

    @Test func latencyDelaysBothWaysForTheChosenClientOnly() async throws {
        let (echo, proxy) = try await setUp()
        let (slow, _) = try await Self.client(proxy, name: "slow")
        let (fast, _) = try await Self.client(proxy, name: "fast")
        proxy.shape(ProxyConditions(latencyMs: 150), clients: ["slow"])
        let before = slow.received.count, beforeFast = fast.received.count
        let t0 = ContinuousClock.now
        slow.send(Array("ping".utf8))
        fast.send(Array("ping".utf8))
        _ = await fast.await(beforeFast + 4)
        let fastTime = ContinuousClock.now - t0
        _ = await slow.await(before + 4)
        let slowTime = ContinuousClock.now - t0
        #expect(slowTime >= .milliseconds(300), "150 ms each way: \(slowTime)")
        #expect(fastTime < slowTime)
        await proxy.stop()
        try await echo.close()
    }

    @Test func aPartitionHoldsBytesAndReleasesThemInOrder() async throws {
        let (echo, proxy) = try await setUp()
        let (c, hello) = try await Self.client(proxy, name: "c1")
        let (other, otherHello) = try await Self.client(proxy, name: "c2")
        proxy.partition(["c1"])
        var sent: [UInt8] = []
        for i in 0..<20 { let b = Array("held-\(i)|".utf8); c.send(b); sent += b }
        other.send(Array("free".utf8))
        #expect(await other.await(otherHello.count + 4).count == otherHello.count + 4, "c2 is not partitioned")
        try await Task.sleep(for: .milliseconds(300))
        #expect(c.received.count == hello.count, "nothing crosses a partition")
        #expect(proxy.stats.chunksHeld > 0)
        proxy.heal(["c1"])
        c.send(Array("after".utf8))
        let got = await c.await(hello.count + sent.count + 5)
        #expect(Array(got.dropFirst(hello.count)) == sent + Array("after".utf8), "held bytes leave first, in order")
        await proxy.stop()
        try await echo.close()
    }

    @Test func dropResetsTheChosenConnectionsOnly() async throws {
        let (echo, proxy) = try await setUp()
        let (victim, _) = try await Self.client(proxy, name: "victim")
        let (other, otherHello) = try await Self.client(proxy, name: "other")
        proxy.drop(["victim"])
        try await victim.channel.closeFuture.get()
        other.send(Array("still".utf8))
        #expect(await other.await(otherHello.count + 5).count == otherHello.count + 5)
        #expect(proxy.stats.dropped == 1)
        await proxy.stop()
        try await echo.close()
    }

    @Test func halfOpenSwallowsBytesAndNeverCloses() async throws {
        let (echo, proxy) = try await setUp()
        let (c, hello) = try await Self.client(proxy, name: "c1")
        proxy.halfOpen(["c1"])
        c.send(Array("lost".utf8))
        try await Task.sleep(for: .milliseconds(300))
        #expect(c.received.count == hello.count)
        #expect(c.channel.isActive, "no close reaches the client")
        proxy.endHalfOpen(["c1"])
        c.send(Array("still lost".utf8))
        try await Task.sleep(for: .milliseconds(200))
        #expect(c.received.count == hello.count, "a connection that lost bytes stays silent")
        #expect(proxy.stats.chunksDiscarded >= 2)
        let (fresh, freshHello) = try await Self.client(proxy, name: "c1")
        fresh.send(Array("new".utf8))
        #expect(await fresh.await(freshHello.count + 3).count == freshHello.count + 3, "a new connection works once the window ends")
        await proxy.stop()
        try await echo.close()
    }

    @Test func bandwidthCapSlowsATransfer() async throws {
        let (echo, proxy) = try await setUp()
        let (c, hello) = try await Self.client(proxy, name: "c1")
        proxy.shape(ProxyConditions(bytesPerSecond: 20_000), clients: ["c1"])
        let payload = [UInt8](repeating: 0x61, count: 10_000)
        let t0 = ContinuousClock.now
        for k in 0..<10 { c.send(Array(payload[(k * 1000)..<((k + 1) * 1000)])) }
        let got = await c.await(hello.count + payload.count, timeout: .seconds(20))
        let took = ContinuousClock.now - t0
        #expect(got.count == hello.count + payload.count)
        #expect(took >= .milliseconds(400), "10 KB at 20 KB/s, each way: \(took)")
        await proxy.stop()
        try await echo.close()
    }

    @Test func theClientIsReadFromTheRequestLine() {
        #expect(FaultProxy.client(inRequestLine: "GET /socket?protocol=2&whalesim-client=c017 HTTP/1.1") == "c017")
        #expect(FaultProxy.client(inRequestLine: "GET /socket?whalesim-client=c1.2&x=y HTTP/1.1") == "c1.2")
        #expect(FaultProxy.client(inRequestLine: "GET /socket HTTP/1.1") == nil)
        #expect(FaultProxy.client(inRequestLine: "\u{16}\u{03}\u{01} binary") == nil)
    }
}
