import Foundation
import Testing
@testable import WhaleReports

@Suite struct ComparisonTests {
    func summary(p99: Double, verdict: String = "valid", met: Bool = true) throws -> RunSummary {
        var record = ReportBoundsTests.record(verdict: verdict)
        record.thresholds = [.init(threshold: "convergence == valid", met: met)]
        let run = RunDirectory(path: "/x", record: record, history: [])
        var s = RunSummary(run: run, series: RunSeries(unit: "ticks", bucketWidth: 1, bucketStarts: [0]))
        s.latency["op_ack"] = .init(count: 10, p50: 10, p90: 20, p99: p99, max: 100, unit: "ticks")
        return s
    }

    @Test func sameFiguresDoNotRegress() throws {
        let c = RunComparison(a: ("A", try summary(p99: 40)), b: ("B", try summary(p99: 40)), maxRegression: 0.1)
        #expect(!c.regressed)
        #expect(c.table().contains("no regression"))
    }

    @Test func latencyGrowthPastTheLimitRegresses() throws {
        let within = RunComparison(a: ("A", try summary(p99: 40)), b: ("B", try summary(p99: 44)), maxRegression: 0.1)
        #expect(!within.regressed)
        let past = RunComparison(a: ("A", try summary(p99: 40)), b: ("B", try summary(p99: 45)), maxRegression: 0.1)
        #expect(past.regressed)
        let row = try #require(past.latency.first { $0.metric == "op_ack" && $0.stat == "p99" })
        #expect(row.change == 0.125 && row.regressed)
        #expect(past.table().contains("op_ack p99 (ticks)"))
        #expect(past.table().contains("+12.5 %  REGRESSED"))
        // Faster is never a regression.
        #expect(!RunComparison(a: ("A", try summary(p99: 40)), b: ("B", try summary(p99: 4)), maxRegression: 0).regressed)
    }

    @Test func aWorseVerdictOrBreachedThresholdRegresses() throws {
        let c = RunComparison(a: ("A", try summary(p99: 40)), b: ("B", try summary(p99: 40, verdict: "invalid", met: false)), maxRegression: 0.1)
        #expect(c.regressed)
        #expect(c.verdicts.filter(\.worse).map(\.name) == ["verdict", "checker convergence", "threshold convergence == valid"])
        let better = RunComparison(a: ("A", try summary(p99: 40, verdict: "invalid", met: false)), b: ("B", try summary(p99: 40)), maxRegression: 0.1)
        #expect(!better.regressed)
        let json = try #require(try JSONSerialization.jsonObject(with: c.json()) as? [String: Any])
        #expect(json["regressed"] as? Bool == true)
        #expect(c.html().contains("regressed"))
    }
}
