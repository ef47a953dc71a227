import Foundation
import Testing
@testable import WhaleRun

/// The per-second histograms of a live run go to a scratch file once their second is over, so a
/// long run's runner does not grow by them (issue 21): what the charts, thresholds and record
/// read back is the same as if they had stayed in memory, nothing is left on disk, and bytes that
/// do not read back whole are refused rather than charted.
@Suite struct SpilledSecondsTests {
    /// Samples spread over `seconds` seconds: a function of the second and the index, so every
    /// metrics fed with them holds the same.
    static func feed(_ metrics: LiveMetrics, seconds: Int) {
        for second in 0..<seconds {
            for i in 0..<(50 + second * 7 % 40) {
                metrics.record("op_ack", us: Int64(800 + (i * 37 + second * 101) % 9_000), second: second)
                if i % 3 == 0 {
                    metrics.record("op_remote_apply", us: Int64(1_500 + (i * 53 + second) % 20_000), second: second)
                }
                if second % 10 == 0, i == 0 {
                    metrics.record("converge", us: Int64(2_000_000 + second), second: second)
                }
            }
        }
    }

    static func scratchDirectory() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("spill-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir.path
    }

    @Test func spilledSecondsReadBackAsTheyWereAndLeaveMemory() throws {
        let dir = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let spilled = LiveMetrics(clock: RunClock(), spillDirectory: dir)
        let kept = LiveMetrics(clock: RunClock(), spillDirectory: nil)
        Self.feed(spilled, seconds: 60)
        Self.feed(kept, seconds: 60)
        // Only the open seconds (the last two) stay in memory; without a spill file, all 60 do.
        #expect(spilled.secondsInMemory <= 2)
        #expect(kept.secondsInMemory == 60)
        // The scratch file was unlinked when it was opened: nothing is left in the directory.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)

        let endMs = 60_000
        #expect(spilled.bucketHistograms(endMs: endMs) == kept.bucketHistograms(endMs: endMs))
        let a = spilled.series(endMs: endMs, faultWindows: []), b = kept.series(endMs: endMs, faultWindows: [])
        for name in ["op_ack", "op_remote_apply", "converge"] {
            #expect(a.latency[name]?.p99 == b.latency[name]?.p99, "\(name)")
            #expect(a.latency[name]?.max == b.latency[name]?.max, "\(name)")
            #expect(a.latency[name]?.p50 == b.latency[name]?.p50, "\(name)")
        }
        let byMetricA = spilled.bucketsByMetric, byMetricB = kept.bucketsByMetric
        #expect(byMetricA.keys.sorted() == byMetricB.keys.sorted())
        for (name, seconds) in byMetricB {
            #expect(byMetricA[name]?.keys.sorted() == seconds.keys.sorted(), "\(name)")
            for (second, h) in seconds {
                #expect(byMetricA[name]?[second]?.encoded == h.encoded, "\(name) at \(second)")
            }
        }
    }

    @Test func withNoScratchFileTheSecondsStayInMemory() {
        let metrics = LiveMetrics(clock: RunClock(), spillDirectory: "/nonexistent/whalesim-\(UUID().uuidString)")
        Self.feed(metrics, seconds: 12)
        #expect(metrics.secondsInMemory == 12)
        #expect(metrics.bucketsByMetric["op_ack"]?.count == 12)
    }

    /// A sample whose second was finished while its thread waited goes into the oldest open second:
    /// counted once, in the totals and in the charts.
    @Test func aLateSampleGoesIntoTheOldestOpenSecond() throws {
        let metrics = LiveMetrics(clock: RunClock())
        for second in 0..<10 { metrics.record("op_ack", us: 1_000, second: second) }
        metrics.record("op_ack", us: 5_000, second: 2)
        #expect(metrics.totals["op_ack"]?.count == 11)
        let perSecond = try #require(metrics.bucketsByMetric["op_ack"])
        #expect(perSecond[2]?.count == 1)
        #expect(perSecond[8]?.count == 2)
        #expect(perSecond.values.map(\.count).reduce(0, +) == 11)
    }

    @Test func aSecondsBytesRoundTrip() throws {
        var a = LatencyHistogram(), b = LatencyHistogram()
        for v in [1, 5, 5, 900, 12_000, 599_000_000] as [Int64] { a.record(us: v) }
        b.record(us: 42)
        let bytes = SpilledSecond.encode(["op_ack": a, "é-metric": b, "empty": LatencyHistogram()])
        let back = try #require(SpilledSecond.decode(bytes))
        #expect(back.keys.sorted() == ["empty", "op_ack", "é-metric"])
        #expect(back["op_ack"]?.encoded == a.encoded)
        #expect(back["op_ack"]?.count == 6)
        #expect(back["é-metric"]?.encoded == b.encoded)
        #expect(back["empty"]?.count == 0)
        #expect(SpilledSecond.decode([])?.isEmpty == true)
    }

    /// What each kind of damaged bytes gets: nil, never a histogram made of them.
    @Test func damagedBytesAreRefused() {
        var h = LatencyHistogram()
        for v in [10, 20, 3_000] as [Int64] { h.record(us: v) }
        let good = SpilledSecond.encode(["op_ack": h])
        #expect(SpilledSecond.decode(good) != nil)
        // Cut anywhere: a name, a count or the pairs end early.
        for cut in 1..<good.count { #expect(SpilledSecond.decode(Array(good.prefix(cut))) == nil, "cut at \(cut)") }
        // A name length past the end.
        #expect(SpilledSecond.decode([200, 1, 0x61]) == nil)
        // A varint that never ends.
        #expect(SpilledSecond.decode([0x81, 0x81, 0x81]) == nil)
        // Ill-formed UTF-8 in a name.
        #expect(SpilledSecond.decode([2, 0xC3, 0x28, 0, 0]) == nil)
        // Pairs that end inside a varint, or hold an odd number of varints.
        #expect(SpilledSecond.decode([1, 0x61, 1, 2, 5, 0x81]) == nil)
        #expect(SpilledSecond.decode([1, 0x61, 1, 3, 5, 1, 7]) == nil)
        // The same metric twice.
        #expect(SpilledSecond.decode(good + good) == nil)
    }

    @Test func theScratchFileReadsWhatWasWrittenWhereItWasWritten() throws {
        let dir = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = try #require(SpillFile(directory: dir))
        #expect(file.write([1, 2, 3], at: 0))
        #expect(file.write(Array(repeating: 9, count: 100_000), at: 3))
        #expect(file.read(at: 0, count: 3) == [1, 2, 3])
        #expect(file.read(at: 3, count: 100_000) == Array(repeating: 9, count: 100_000))
        // Past the end: nil, not zeros.
        #expect(file.read(at: 100_000, count: 10) == nil)
        #expect(SpillFile(directory: "/nonexistent/whalesim-\(UUID().uuidString)") == nil)
    }
}
