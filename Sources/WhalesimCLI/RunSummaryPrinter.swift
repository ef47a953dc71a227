import Foundation
import WhaleRun

/// The verdict block `run` prints: each checker, each threshold with its measured value, the figures.
enum RunSummaryPrinter {
    static func print(_ r: LiveRunResult, record: LiveRunRecord) {
        Swift.print("\(r.clientsStarted) clients, \(record.counts["edits"] ?? 0) edits, \(record.counts["acknowledged"] ?? 0) acks, \(record.counts["messages"] ?? 0) messages, \(r.errors) errors in \(r.durationMs / 1000)s")
        for name in ["op_ack", "op_remote_apply", "connect", "login", "graphql", "soql", "converge"] {
            guard let h = r.histograms[name], h.count > 0 else { continue }
            Swift.print(String(format: "  %-16@ n=%-7d p50 %8.2fms  p90 %8.2fms  p99 %8.2fms  max %8.2fms", name as NSString, h.count,
                               h.percentileMs(50)!, h.percentileMs(90)!, h.percentileMs(99)!, h.maxMs!))
        }
        for c in r.results {
            Swift.print("  \(c.checker.rawValue.padding(toLength: 12, withPad: " ", startingAt: 0)) \(c.verdict.rawValue)")
            for line in c.evidence.prefix(10) { Swift.print("      \(line)") }
            for line in c.findings.prefix(10) { Swift.print("      finding: \(line)") }
        }
        for (t, met) in r.thresholds where !met { Swift.print("  threshold breached: \(t.description)") }
        for m in r.metricThresholds {
            Swift.print("  threshold \(m.threshold): \(m.met ? "met" : "BREACHED") (measured \(LiveRunRecord.format(m)))")
        }
        for n in r.notes.prefix(20) { Swift.print("  note: \(n)") }
        Swift.print("replay: \(record.replayCommand)")
    }

    static func verdictLine(_ r: LiveRunResult) -> String {
        if let shard = r.shard { return "shard \(shard.index)/\(shard.count) recorded; the checkers and thresholds judge the merged run (whalesim merge)" }
        return switch r.exitCode {
        case 0: "pass (every checker valid, every threshold met)"
        case 1: "threshold breached (exit 1)"
        case 2: "correctness violated (exit 2)"
        default: "inconclusive (exit 3)"
        }
    }
}
