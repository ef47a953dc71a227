import NIOConcurrencyHelpers
import WhaleLoad
import WhaleBench
import WhaleServer
import XCTest

/// A real websocket through the proxy: the raw echo server of `whalesim bench server` and the
/// load runner's `LiveSocket`, tagged with `?whalesim-client=`.
final class FaultProxyWebSocketTests: XCTestCase {
    func testDropEndsOneClientsSocketWhileAnotherKeepsWorking() async throws {
        let server = try await RawBaselineServer.start(mode: .echo)
        let proxy = try await FaultProxy.start(upstreamHost: "127.0.0.1", upstreamPort: server.port, seed: 3)
        let got1 = NIOLockedValueBox<[String]>([])
        let got2 = NIOLockedValueBox<[String]>([])
        let s1 = LiveSocket(url: "ws://127.0.0.1:\(proxy.port)/socket?whalesim-client=c1") { t in
            got1.withLockedValue { $0.append(t) }
        }
        let s2 = LiveSocket(url: "ws://127.0.0.1:\(proxy.port)/socket?whalesim-client=c2") { t in
            got2.withLockedValue { $0.append(t) }
        }
        let open1 = await s1.connected(timeout: .seconds(5))
        let open2 = await s2.connected(timeout: .seconds(5))
        XCTAssertTrue(open1)
        XCTAssertTrue(open2)

        proxy.shape(ProxyConditions(latencyMs: 20, jitterMs: 20))
        for i in 0..<20 { s1.send("one-\(i)") }
        s2.send("two-0")
        expectTrue(
            await eventually { got1.withLockedValue { $0.count } == 20 && got2.withLockedValue { $0.count } == 1 })
        XCTAssertEqual(got1.withLockedValue { $0 }, (0..<20).map { "one-\($0)" }, "frames in order through jitter")

        proxy.drop(clients: ["c1"])
        expectTrue(await eventually { s1.ending != nil }, "the dropped socket ended")
        s2.send("two-1")
        expectTrue(await eventually { got2.withLockedValue { $0 } == ["two-0", "two-1"] })
        XCTAssertNil(s2.ending)
        XCTAssertEqual(proxy.stats.connectionsDropped, 1)

        await s2.close()
        await proxy.stop()
        await server.stop()
    }
}
