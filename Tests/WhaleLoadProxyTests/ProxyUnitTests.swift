import NIOCore
import WhalesimTesting
import XCTest
@testable import WhaleLoad

/// The proxy's sans-I/O parts: the client tag and the per-direction queue.
final class ProxyUnitTests: XCTestCase {
    func testClientTagComesFromTheFirstRequestLineOnly() {
        XCTAssertEqual(ClientTag.client(inRequestLine: "GET /socket?token=x&whalesim-client=c12 HTTP/1.1"), "c12")
        XCTAssertEqual(ClientTag.client(inRequestLine: "GET /socket?whalesim-client=c%2012 HTTP/1.1"), "c 12")
        XCTAssertNil(ClientTag.client(inRequestLine: "GET /socket?token=x HTTP/1.1"))
        XCTAssertNil(ClientTag.client(inRequestLine: "GET /socket?whalesim-client= HTTP/1.1"))
        XCTAssertNil(ClientTag.client(inRequestLine: "hello whalesim-client=c1 there"))
        XCTAssertNil(ClientTag.client(inRequestLine: "\u{16}\u{03}\u{01}binary"))

        // Split across reads, LF-only, and a line that never ends.
        var tag = ClientTag()
        XCTAssertFalse(tag.feed(Array("GET /s?whalesim-cl".utf8)))
        XCTAssertTrue(tag.feed(Array("ient=c7 HTTP/1.1\r\nHost: x\r\n".utf8)))
        XCTAssertEqual(tag.client, "c7")
        var lf = ClientTag()
        XCTAssertTrue(lf.feed(Array("GET /s?whalesim-client=c8 HTTP/1.1\n".utf8)))
        XCTAssertEqual(lf.client, "c8")
        var endless = ClientTag()
        XCTAssertTrue(endless.feed([UInt8](repeating: 65, count: ClientTag.maxLineBytes + 1)))
        XCTAssertNil(endless.client)
    }

    func testChunkQueueNeverReordersWhateverTheJitter() {
        var rng = SplitMix64(seed: 42)
        var queue = ChunkQueue()
        let start = NIODeadline.uptimeNanoseconds(1_000_000_000)
        for i in 0..<500 {
            let now = start + .milliseconds(Int64(i / 10))
            let c = ProxyConditions(
                latencyMs: Int.random(in: 0...20, using: &rng), jitterMs: 50,
                bandwidthBytesPerSecond: i % 3 == 0 ? 1_000_000 : nil)
            queue.enqueue(
                ByteBuffer(bytes: [UInt8(i % 256)]), now: now, conditions: c,
                jitterMs: Int.random(in: 0...50, using: &rng))
        }
        var times: [NIODeadline] = []
        var out: [UInt8] = []
        var probe = queue
        while let at = probe.nextAt {
            times.append(at)
            out += probe.popDue(now: at).flatMap { Array($0.readableBytesView) }
        }
        XCTAssertEqual(out, (0..<500).map { UInt8($0 % 256) })
        XCTAssertEqual(times, times.sorted())
    }

    func testBandwidthSpacesChunksByTheirSize() {
        var queue = ChunkQueue()
        let now = NIODeadline.uptimeNanoseconds(0)
        let cap = ProxyConditions(latencyMs: 10, bandwidthBytesPerSecond: 1000)
        queue.enqueue(ByteBuffer(repeating: 0, count: 500), now: now, conditions: cap, jitterMs: 0)
        queue.enqueue(ByteBuffer(repeating: 0, count: 500), now: now, conditions: cap, jitterMs: 0)
        XCTAssertEqual(queue.nextAt, now + .milliseconds(510))
        XCTAssertEqual(queue.bytes, 1000)
        _ = queue.popDue(now: now + .milliseconds(510))
        XCTAssertEqual(queue.nextAt, now + .milliseconds(1010))
        XCTAssertEqual(queue.bytes, 500)
        queue.hold(ByteBuffer(repeating: 1, count: 7))
        XCTAssertEqual(queue.bytes, 507)
        XCTAssertEqual(queue.takeHeld().map(\.readableBytes), [7])
        XCTAssertEqual(queue.bytes, 500)
    }
}
