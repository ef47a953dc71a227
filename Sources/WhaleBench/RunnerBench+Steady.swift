import Foundation
import WhaleRun

extension RunnerBench {
    /// The first second-bucket with every client connected, plus two: the steady window's start.
    static func steadyStart(_ r: LiveRunResult, clients: Int) -> Int? {
        r.series.connected.firstIndex { $0 >= clients }.map { $0 + 2 }
    }

    /// Seconds in the steady window (buckets with acks from its start on).
    static func steadySeconds(_ r: LiveRunResult, clients: Int) -> Int {
        guard let start = steadyStart(r, clients: clients), let acked = r.series.counters["ops_acked"],
            start < acked.count
        else { return 0 }
        return acked[start...].filter { $0 > 0 }.count
    }

    /// One latency's histogram over the steady window, from the run's per-second histograms.
    static func steady(_ r: LiveRunResult, _ name: String, clients: Int) -> LatencyHistogram? {
        guard let buckets = r.bucketHistograms[name], let start = steadyStart(r, clients: clients),
            start < buckets.count
        else { return nil }
        var total = LatencyHistogram()
        for pairs in buckets[start...] where !pairs.isEmpty {
            guard let h = try? LatencyHistogram(encoded: pairs) else { return nil }
            total.add(h)
        }
        return total.count > 0 ? total : nil
    }

    /// One window's cost on one line, `runner` naming who spent it.
    static func describe(_ w: RunnerCPUSampler.Window, runner: String) -> String {
        String(
            format:
                "%@ %.2f cores over %.1f s at %.0f ops/s: %.3f CPU s per 1,000 ops, %.0f frames per CPU-second (%.1f frames per op)",
            runner, w.cores, w.seconds, w.opsPerSecond, w.cpuSecondsPer1000Ops, w.framesPerCPUSecond,
            Double(w.frames) / Double(max(1, w.ops)))
    }

}
