import Foundation
import WhaleRun

/// The verdict block `run` prints: each checker, each threshold with its measured value, the figures.
enum RunSummaryPrinter {
    static func print(_ r: LiveRunResult, record: LiveRunRecord) {
        Swift.print(
            "\(r.clientsStarted) clients, \(record.counts["edits"] ?? 0) edits, \(record.counts["acknowledged"] ?? 0) acks, \(record.counts["messages"] ?? 0) messages, \(r.errors) errors in \(r.durationMs / 1000)s"
        )
        for name in LiveMetrics.latencyNames {
            guard let h = r.histograms[name], h.count > 0 else { continue }
            Swift.print(
                String(
                    format: "  %-22@ n=%-7d p50 %8.2fms  p90 %8.2fms  p99 %8.2fms  max %8.2fms", name as NSString,
                    h.count,
                    h.percentileMs(50)!, h.percentileMs(90)!, h.percentileMs(99)!, h.maxMs!))
        }
        for c in r.results {
            Swift.print(
                "  \(c.checker.rawValue.padding(toLength: 12, withPad: " ", startingAt: 0)) \(c.verdict.rawValue)")
            for line in c.evidence.prefix(10) { Swift.print("      \(line)") }
            for line in c.findings.prefix(10) { Swift.print("      finding: \(line)") }
        }
        for (t, met) in r.thresholds where !met { Swift.print("  threshold breached: \(t.description)") }
        for m in r.metricThresholds {
            let outcome = m.unknown.map { "UNKNOWN: \($0)" } ?? (m.met ? "met" : "BREACHED")
            Swift.print("  threshold \(m.threshold): \(outcome) (measured \(LiveRunRecord.format(m)))")
        }
        for u in r.unavailable { Swift.print("  unavailable: \(u)") }
        for n in r.notes.prefix(20) { Swift.print("  note: \(n)") }
        Swift.print("replay: \(record.replayCommand)")
    }

    static func verdictLine(_ r: LiveRunResult) -> String {
        if let shard = r.shard {
            return
                "shard \(shard.index)/\(shard.count) recorded; the checkers and thresholds judge the merged run (whalesim merge)"
        }
        return switch r.exitCode {
        case 0: "pass (every checker valid, every threshold met)"
        case 1: "threshold breached (exit 1)"
        case 2: "correctness violated (exit 2)"
        default:
            if !r.unavailable.isEmpty {
                "inconclusive (exit 3): \(r.unavailable.joined(separator: "; "))"
            } else if let why = Self.unjudgedLatency(r) {
                "inconclusive (exit 3): \(why)"
            } else {
                "inconclusive (exit 3)"
            }
        }
    }

    /// Why latency thresholds went unjudged, in a few words: whose delay they may hold.
    static func unjudgedLatency(_ r: LiveRunResult) -> String? {
        let reasons = r.metricThresholds.compactMap(\.unknown)
        guard !reasons.isEmpty else { return nil }
        if reasons.allSatisfy({ $0.hasPrefix("no samples") }) {
            return "nothing was measured in a threshold's window, so it cannot be judged"
        }
        let runner = reasons.contains { $0.contains("load generator was saturated") }
        let machine = reasons.contains { $0.contains("busy with other processes") }
        let whose =
            switch (runner, machine) {
            case (true, true): "the load generator was saturated and its machine busy with other processes"
            case (false, true): "the machine was busy with other processes (the server may have been starved of CPU)"
            default: "the load generator was saturated"
            }
        return "\(whose), so those latencies cannot be judged"
    }
}
