import NIOCore
import WhalesimTesting
import XCTest
@testable import WhaleLoad

/// The proxy on real sockets, between a raw TCP client and an echo server. Timing assertions
/// are lower bounds only (a loaded CI box is slow, never fast).
final class FaultProxyTests: XCTestCase {
    private var echo: EchoServer!
    private var proxy: FaultProxy!

    override func setUp() async throws {
        echo = try await EchoServer.start()
        proxy = try await FaultProxy.start(upstreamHost: "127.0.0.1", upstreamPort: echo.port, seed: 7)
    }

    override func tearDown() async throws {
        await proxy.stop()
        await echo.stop()
    }

    func testBytesPassThroughIdentically() async throws {
        var rng = SplitMix64(seed: 1)
        let line = TestClient.requestLine("c1")
        let payload = line + (0..<1_500_000).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let client = try await TestClient.connect(port: proxy.port)
        var sent = 0
        while sent < payload.count {
            let n = min(Int.random(in: 1...65_536, using: &rng), payload.count - sent)
            try await client.send(Array(payload[sent..<sent + n]))
            sent += n
        }
        let back = await client.waitFor(count: payload.count, timeout: .seconds(20))
        XCTAssertEqual(back, payload)
        expectTrue(await eventually { self.proxy.stats.bytesDownstream == payload.count })
        let stats = proxy.stats
        XCTAssertEqual(stats.bytesUpstream, payload.count)
        XCTAssertEqual(stats.connectionsAccepted, 1)
        XCTAssertEqual(stats.connectionsOpen, 1)
        await client.close()
        expectTrue(await eventually { self.proxy.stats.connectionsOpen == 0 })
    }

    func testLatencyAddsAtLeastTheConfiguredDelay() async throws {
        let client = try await TestClient.connect(port: proxy.port, client: "c1")
        let line = TestClient.requestLine("c1").count
        _ = await client.waitFor(count: line)

        proxy.shape(ProxyConditions(latencyMs: 100))
        let roundTrip = try await seconds {
            try await client.send([1, 2, 3])
            expectSome(await client.waitFor(count: line + 3))
        }
        XCTAssertGreaterThanOrEqual(roundTrip, 0.19, "100 ms each way")

        proxy.unshape()
        proxy.shape(ProxyConditions(latencyMs: 150), direction: .upstream)
        let oneWay = try await seconds {
            try await client.send([4])
            expectSome(await client.waitFor(count: line + 4))
        }
        XCTAssertGreaterThanOrEqual(oneWay, 0.14, "150 ms upstream only")
        await client.close()
    }

    func testJitterNeverReordersChunks() async throws {
        proxy.shape(ProxyConditions(latencyMs: 2, jitterMs: 40))
        let client = try await TestClient.connect(port: proxy.port, client: "c1")
        var expected = TestClient.requestLine("c1")
        for i in 0..<200 {
            let chunk = withUnsafeBytes(of: UInt32(i).bigEndian) { Array($0) }
            expected += chunk
            try await client.send(chunk)
            // Some pauses so the proxy reads many separate chunks, each with its own jitter.
            if i % 4 == 0 { try await Task.sleep(for: .milliseconds(1)) }
        }
        let back = await client.waitFor(count: expected.count, timeout: .seconds(10))
        XCTAssertEqual(back, expected)
        await client.close()
    }

    func testPartitionHoldsBothWaysThenReleasesInOrder() async throws {
        let client = try await TestClient.connect(port: proxy.port, client: "c1")
        var expected = TestClient.requestLine("c1")
        _ = await client.waitFor(count: expected.count)

        // Downstream: an echo already delayed on its way back waits for the heal.
        proxy.shape(ProxyConditions(latencyMs: 150), direction: .downstream)
        try await client.send([0xAA])
        expected += [0xAA]
        try await Task.sleep(for: .milliseconds(30))
        proxy.partition(clients: ["c1"])
        // Upstream: everything sent while partitioned is held.
        for i in 0..<40 {
            try await client.send([UInt8(i), UInt8(i), UInt8(i)])
            expected += [UInt8(i), UInt8(i), UInt8(i)]
            try await Task.sleep(for: .milliseconds(2))
        }
        try await Task.sleep(for: .milliseconds(400))
        XCTAssertEqual(client.received.count, expected.count - 1 - 120, "nothing crosses a partition")
        XCTAssertFalse(client.isClosed)
        XCTAssertGreaterThan(proxy.stats.chunksHeld, 0)

        proxy.unshape()
        proxy.heal(clients: ["c1"])
        let back = await client.waitFor(count: expected.count)
        XCTAssertEqual(back, expected)
        XCTAssertFalse(client.isClosed)
        await client.close()
    }

    func testHalfOpenNeitherDeliversNorCloses() async throws {
        let a = try await TestClient.connect(port: proxy.port, client: "c1")
        let b = try await TestClient.connect(port: proxy.port, client: "c1")
        let line = TestClient.requestLine("c1").count
        expectSome(await a.waitFor(count: line))
        expectSome(await b.waitFor(count: line))

        proxy.halfOpen(clients: ["c1"])
        try await a.send([1, 2, 3, 4])
        // A close from the client does not reach the server...
        await b.close()
        // ...and a new connection of the same client is blackholed too.
        let c = try await TestClient.connect(port: proxy.port, client: "c1")
        try await Task.sleep(for: .milliseconds(300))
        XCTAssertEqual(a.received.count, line)
        XCTAssertEqual(c.received.count, 0)
        XCTAssertEqual(echo.closeCount, 0, "the server saw no close")

        // Nor does a close from the server reach the clients.
        await echo.closeConnections()
        try await Task.sleep(for: .milliseconds(300))
        XCTAssertFalse(a.isClosed)
        XCTAssertFalse(c.isClosed)
        XCTAssertGreaterThan(proxy.stats.chunksDiscarded, 0)
        XCTAssertEqual(proxy.stats.connectionsOpen, 3, "b's server side still waits")

        // When the window ends, the closes that waited for it arrive.
        proxy.endHalfOpen(clients: ["c1"])
        expectTrue(await eventually { a.isClosed && c.isClosed && self.proxy.stats.connectionsOpen == 0 })
    }

    func testBandwidthCapSlowsA200KBTransfer() async throws {
        let size = 200_000
        let rate = 200_000
        proxy.shape(ProxyConditions(bandwidthBytesPerSecond: rate), direction: .upstream)
        let client = try await TestClient.connect(port: proxy.port)
        let payload = [UInt8](repeating: 0x5A, count: size)
        let took = try await seconds {
            try await client.send(payload)
            expectSome(await client.waitFor(count: size, timeout: .seconds(10)))
        }
        XCTAssertGreaterThanOrEqual(took, Double(size) / Double(rate) * 0.8)
        await client.close()
    }

    func testACappedTransferBeyondTheQueueBoundPausesAndResumesReading() async throws {
        // Three times the queue bound: the proxy must stop reading the sender and start again.
        let size = 3 * ProxyConnection.queuedBytesMax
        let rate = 2_000_000
        proxy.shape(ProxyConditions(bandwidthBytesPerSecond: rate), direction: .upstream)
        let client = try await TestClient.connect(port: proxy.port)
        var rng = SplitMix64(seed: 5)
        let payload = (0..<size).map { _ in UInt8.random(in: 0...255, using: &rng) }
        var back: [UInt8]?
        let took = try await seconds {
            try await client.send(payload)
            back = await client.waitFor(count: size, timeout: .seconds(10))
        }
        XCTAssertEqual(back, payload)
        XCTAssertGreaterThanOrEqual(took, Double(size) / Double(rate) * 0.8)
        await client.close()
    }

    func testFaultsForChosenClientsLeaveOthersAlone() async throws {
        let c1 = try await TestClient.connect(port: proxy.port, client: "c1")
        let c2 = try await TestClient.connect(port: proxy.port, client: "c2")
        let untagged = try await TestClient.connect(port: proxy.port)
        try await untagged.send(Array("not http\r\n".utf8))
        let line = TestClient.requestLine("c1").count
        expectSome(await c1.waitFor(count: line))
        expectSome(await c2.waitFor(count: line))
        expectSome(await untagged.waitFor(count: 10))

        proxy.partition(clients: ["c1"])
        proxy.shape(ProxyConditions(latencyMs: 500), clients: ["c1"])
        for client in [c1, c2, untagged] { try await client.send([9]) }
        expectSome(await c2.waitFor(count: line + 1))
        expectSome(await untagged.waitFor(count: 11))
        XCTAssertEqual(c1.received.count, line)

        proxy.heal(clients: ["c1"])
        try await c2.send([8])
        expectSome(await c2.waitFor(count: line + 2))
        XCTAssertEqual(c1.received.count, line, "c1's latency still applies")

        proxy.drop(clients: ["c2"])
        expectTrue(await eventually { c2.isClosed })
        XCTAssertFalse(c1.isClosed)
        XCTAssertFalse(untagged.isClosed)
        XCTAssertEqual(proxy.stats.connectionsDropped, 1)
        expectSome(await c1.waitFor(count: line + 1))
        await c1.close()
        await untagged.close()
    }

    func testUpstreamConnectFailureClosesTheClient() async throws {
        // A port that was just free: nothing listens there.
        let gone = try await EchoServer.start()
        let port = gone.port
        await gone.stop()
        let orphan = try await FaultProxy.start(upstreamHost: "127.0.0.1", upstreamPort: port, seed: 1)
        let client = try await TestClient.connect(port: orphan.port)
        // The proxy may already have closed it: the refused connect is that fast.
        try? await client.send(TestClient.requestLine("c1"))
        expectTrue(await eventually { client.isClosed })
        await orphan.stop()
    }
}
