import Foundation
import Testing
@testable import WhaleRun

/// A finished second's histogram is kept compact (its recorded pairs); every figure read from it,
/// and every sum it goes into, is what the dense histogram gives.
@Suite struct CompactHistogramTests {
    static func sample(seed: UInt64, n: Int) -> LatencyHistogram {
        var h = LatencyHistogram()
        var x = seed
        for _ in 0..<n {
            x = x &* 6364136223846793005 &+ 1442695040888963407
            // Spread over six decades, as latencies are: 1 µs to about 1,000 s (past the top is clamped).
            let decades = Double(x >> 40) / Double(1 << 24) * 9
            h.record(us: Int64(pow(10, decades)))
        }
        return h
    }

    @Test func compactedGivesTheSameFigures() throws {
        let dense = Self.sample(seed: 7, n: 5_000)
        let compact = dense.compacted()
        #expect(compact.count == dense.count)
        for stat in ["p50", "p90", "p95", "p99", "p999", "max", "mean", "count"] {
            #expect(compact.stat(stat) == dense.stat(stat), "\(stat)")
        }
        #expect(compact.encoded == dense.encoded)
        #expect(try LatencyHistogram(encoded: compact.encoded).encoded == dense.encoded)
    }

    @Test func aCompactPairTakesAFewBytes() {
        let dense = Self.sample(seed: 11, n: 20_000)
        let compact = dense.compacted()
        let pairs = dense.encoded.count
        #expect(pairs > 1_000)
        #expect(compact.compactByteCount <= pairs * 5)  // was 16 bytes a pair
        #expect(compact.encoded == dense.encoded)
    }

    @Test func sumsAndRecordsGiveWhatDenseOnesGive() {
        let a = Self.sample(seed: 1, n: 2_000), b = Self.sample(seed: 2, n: 3_000)
        var dense = a
        dense.add(b)
        var fromCompact = a.compacted()
        fromCompact.add(b.compacted())
        #expect(fromCompact.encoded == dense.encoded)
        #expect(fromCompact.percentileMs(99) == dense.percentileMs(99))

        var recorded = a.compacted()
        recorded.record(us: 12_345)
        var expected = a
        expected.record(us: 12_345)
        #expect(recorded.encoded == expected.encoded)
        #expect(recorded.count == a.count + 1)
    }

    @Test func anEmptyHistogramStaysEmptyCompacted() {
        let empty = LatencyHistogram().compacted()
        #expect(empty.count == 0)
        #expect(empty.percentileMs(99) == nil)
        #expect(empty.encoded.isEmpty)
    }
}
