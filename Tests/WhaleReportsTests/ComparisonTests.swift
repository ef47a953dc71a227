import Foundation
import Testing
@testable import WhaleReports

/// `report --compare`'s rules on synthetic summaries: what is judged, the floor, thresholds
/// keyed by expression, and the spread rule for repeats (``ComparisonRules``).
@Suite struct ComparisonTests {
    func summary(p99: Double, verdict: String = "valid", met: Bool = true, count: Int = 5_000) throws -> RunSummary {
        var record = ReportBoundsTests.record(verdict: verdict)
        record.thresholds = [.init(threshold: "convergence == valid", met: met)]
        let run = RunDirectory(path: "/x", record: record, history: [])
        var s = RunSummary(run: run, series: RunSeries(unit: "ticks", bucketWidth: 1, bucketStarts: [0]))
        s.latency["op_ack"] = .init(count: count, p50: 10, p90: 20, p99: p99, max: 100, unit: "ticks")
        return s
    }

    /// A live-shaped summary: metric → (count, p50, p90, p99, max) in ms.
    func live(
        _ metrics: [String: (Int, Double, Double, Double, Double)], thresholds: [(String, Bool)] = [],
        verdict: String = "valid"
    ) throws -> RunSummary {
        var s = try summary(p99: 0, verdict: verdict)
        s.latency = metrics.mapValues { .init(count: $0.0, p50: $0.1, p90: $0.2, p99: $0.3, max: $0.4, unit: "ms") }
        s.thresholds = thresholds.map { .init(threshold: $0.0, met: $0.1) }
        return s
    }

    func side(_ name: String, _ runs: [RunSummary]) -> ComparisonSide { ComparisonSide(path: name, runs: runs) }

    func row(_ c: RunComparison, _ metric: String, _ stat: String) throws -> RunComparison.LatencyRow {
        try #require(c.latency.first { $0.metric == metric && $0.stat == stat })
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
        let r = try row(past, "op_ack", "p99")
        #expect(r.change == 0.125 && r.regressed && r.judged)
        let line = try #require(past.table().split(separator: "\n").first { $0.hasPrefix("op_ack p99 (ticks)") })
        #expect(line.contains("+12.5 %") && line.hasSuffix("REGRESSED"), "\(line)")
        // Faster is never a regression.
        #expect(
            !RunComparison(a: ("A", try summary(p99: 40)), b: ("B", try summary(p99: 4)), maxRegression: 0).regressed)
    }

    /// A live run measured on a busy machine (its generator saturated, or other processes taking
    /// its CPU, for more than a tenth of the run) does not make its build a regression: slower
    /// figures are shown, not judged, and the comparison is inconclusive (exit 3). A worse
    /// verdict still regresses; a quiet machine's slowdown still regresses.
    @Test func slowerOnABusyMachineIsInconclusiveNotARegression() throws {
        let a = try live(["op_ack": (6_000, 1, 3, 10, 50)])
        var b = try live(["op_ack": (6_000, 1, 3, 40, 90)])
        b.runSeconds = 60
        b.contendedSeconds = 2  // under a tenth: judged
        #expect(RunComparison(a: side("A", [a]), b: side("B", [b]), rules: ComparisonRules()).regressed)
        b.contendedSeconds = 30
        let busy = RunComparison(a: side("A", [a]), b: side("B", [b]), rules: ComparisonRules())
        #expect(!busy.regressed)
        #expect(busy.unjudged == ["B: its machine was busy with other processes 30 of 60 s"])
        #expect(try row(busy, "op_ack", "p99").note.hasPrefix("would regress; not judged"))
        #expect(busy.table().contains("inconclusive: latency grew, but B: its machine was busy"))
        #expect(busy.html().contains("inconclusive"))
        // A saturated generator on A's side counts the same.
        var aSaturated = a
        aSaturated.runSeconds = 60
        aSaturated.saturatedSeconds = 20
        b.contendedSeconds = 0
        let saturated = RunComparison(a: side("A", [aSaturated]), b: side("B", [b]), rules: ComparisonRules())
        #expect(!saturated.regressed && saturated.unjudged == ["A: its load generator was saturated 20 of 60 s"])
        // No growth: nothing to excuse, no inconclusive.
        b.contendedSeconds = 30
        #expect(RunComparison(a: side("A", [a]), b: side("B", [a]), rules: ComparisonRules()).unjudged.isEmpty)
        // A worse verdict is the build's whatever the machine did.
        var invalid = try live(["op_ack": (6_000, 1, 3, 40, 90)], verdict: "invalid")
        invalid.runSeconds = 60
        invalid.contendedSeconds = 30
        #expect(RunComparison(a: side("A", [a]), b: side("B", [invalid]), rules: ComparisonRules()).regressed)
    }

    /// A run whose users were on a timer grid (`live.timer-grid`) against one without: their
    /// arrivals reached the server differently bunched, so slower figures are shown, not judged,
    /// and the comparison says why (inconclusive). The same grid on both sides is judged as usual.
    @Test func slowerWithAnotherTimerGridIsInconclusiveNotARegression() throws {
        let a = try live(["op_ack": (6_000, 1, 3, 10, 50)])
        var b = try live(["op_ack": (6_000, 1, 3, 40, 90)])
        b.timerGridMs = 2
        let c = RunComparison(a: side("A", [a]), b: side("B", [b]), rules: ComparisonRules())
        #expect(!c.regressed)
        #expect(
            c.unjudged == [
                "A ran with no timer grid, B with a 2 ms timer grid (live.timer-grid): their users reached the server differently bunched"
            ])
        #expect(try row(c, "op_ack", "p99").note == "would regress; not judged: the runs' timer grids differ")
        #expect(c.table().contains("inconclusive: latency grew, but A ran with no timer grid"))
        var a2 = a
        a2.timerGridMs = 2
        #expect(RunComparison(a: side("A", [a2]), b: side("B", [b]), rules: ComparisonRules()).regressed)
        // No growth: nothing to excuse.
        #expect(RunComparison(a: side("A", [b]), b: side("B", [a]), rules: ComparisonRules()).unjudged.isEmpty)
        // A busy machine as well: both reasons are given.
        b.runSeconds = 60
        b.contendedSeconds = 30
        let both = RunComparison(a: side("A", [a]), b: side("B", [b]), rules: ComparisonRules())
        #expect(both.unjudged.count == 2 && !both.regressed)
        #expect(
            try row(both, "op_ack", "p99").note
                == "would regress; not judged: a run was measured on a busy machine, and the runs' timer grids differ")
    }

    @Test func aWorseVerdictOrBreachedThresholdRegresses() throws {
        let c = RunComparison(
            a: ("A", try summary(p99: 40)), b: ("B", try summary(p99: 40, verdict: "invalid", met: false)),
            maxRegression: 0.1)
        #expect(c.regressed)
        #expect(
            c.verdicts.filter(\.worse).map(\.name) == [
                "verdict", "checker convergence", "threshold convergence == valid",
            ])
        let better = RunComparison(
            a: ("A", try summary(p99: 40, verdict: "invalid", met: false)), b: ("B", try summary(p99: 40)),
            maxRegression: 0.1)
        #expect(!better.regressed)
        let json = try #require(try JSONSerialization.jsonObject(with: c.json()) as? [String: Any])
        #expect(json["regressed"] as? Bool == true)
        #expect(c.html().contains("regressed"))
    }

    @Test func samplesNeededGrowWithThePercentile() {
        let rules = ComparisonRules()
        #expect(rules.minimumSamples(percentile: 50) == 100)
        #expect(rules.minimumSamples(percentile: 90) == 500)
        #expect(rules.minimumSamples(percentile: 99) == 5_000)
        #expect(rules.minimumSamples(percentile: 99.9) == 50_000)
        #expect(ComparisonRules(tailSamples: 10).minimumSamples(percentile: 99) == 1_000)
        #expect(ComparisonRules.percentile("max") == nil && ComparisonRules.percentile("p99") == 99)
    }

    /// Issue 19: two demo runs of one binary (seeds 4 and 5) were called a regression on
    /// connect max 7.7 → 12.2 ms, login p99 2.3 → 2.7 ms and op_remote_apply max, while B's
    /// op_ack p99 was half of A's.
    @Test func theDemoPairFromTheIssuePasses() throws {
        let threshold = "op_ack.p99 < 250ms"
        let a = try live(
            [
                "connect": (300, 3.1, 5.0, 7.0, 7.7), "login": (300, 1.2, 1.9, 2.3, 2.6),
                "op_ack": (2_400, 12, 80, 371.45, 410), "op_remote_apply": (40_000, 20, 90, 300, 520),
            ],
            thresholds: [("convergence == valid", true), ("\(threshold) (measured 371.45ms)", false)])
        let b = try live(
            [
                "connect": (300, 3.0, 5.2, 9.0, 12.2), "login": (300, 1.2, 2.0, 2.7, 3.1),
                "op_ack": (2_350, 11, 70, 180.2, 260), "op_remote_apply": (39_000, 19, 85, 280, 900),
            ],
            thresholds: [("convergence == valid", true), ("\(threshold) (measured 180.20ms)", true)])
        let c = RunComparison(a: side("A", [a]), b: side("B", [b]), rules: ComparisonRules())
        #expect(!c.regressed, "\(c.table())")
        #expect(try row(c, "connect", "max").judged == false)
        #expect(try row(c, "connect", "max").note.contains("not judged"))
        #expect(try row(c, "login", "p99").judged == false, "300 samples do not measure a p99")
        #expect(try row(c, "login", "p99").note == "not judged: 300 samples < 5000")
        #expect(try row(c, "login", "p50").judged)
        #expect(try row(c, "op_remote_apply", "max").regressed == false)
        // One row per threshold expression, the measured value beside met / breached.
        let rows = c.verdicts.filter { $0.name.hasPrefix("threshold op_ack") }
        #expect(rows.count == 1)
        #expect(rows.first?.name == "threshold \(threshold)")
        #expect(rows.first?.a == "breached (371.45ms)" && rows.first?.b == "met (180.20ms)")
        // And B getting worse on it is still caught.
        let d = RunComparison(a: side("B", [b]), b: side("A", [a]), rules: ComparisonRules())
        #expect(d.verdicts.first { $0.name == "threshold \(threshold)" }?.worse == true)
        #expect(d.regressed)
    }

    @Test func growthUnderTheFloorIsNoise() throws {
        let a = try live(["op_ack": (500, 1.0, 1.8, 4, 9)])
        let noisy = try live(["op_ack": (500, 2.5, 3.6, 9, 30)])
        let c = RunComparison(a: side("A", [a]), b: side("B", [noisy]), rules: ComparisonRules())
        #expect(!c.regressed, "\(c.table())")
        #expect(try row(c, "op_ack", "p50").note == "+1.5 ms: within the 2 ms floor")
        #expect(try row(c, "op_ack", "p90").judged)
        // A planted 5 ms per ack clears the floor.
        let slow = try live(["op_ack": (500, 6.2, 7.1, 12, 30)])
        let d = RunComparison(a: side("A", [a]), b: side("B", [slow]), rules: ComparisonRules())
        #expect(d.regressed)
        #expect(try row(d, "op_ack", "p50").regressed && row(d, "op_ack", "p90").regressed)
        #expect(try !row(d, "op_ack", "p99").judged, "500 samples: p99 is shown only")
        // The floor is an option.
        #expect(RunComparison(a: side("A", [a]), b: side("B", [noisy]), rules: ComparisonRules(floor: 0)).regressed)
    }

    @Test func repeatsJudgeBsMedianRunAgainstAsWorst() throws {
        func run(_ p50: Double) throws -> RunSummary { try live(["op_ack": (400, p50, p50 * 2, p50 * 4, p50 * 6)]) }
        let a = try [10.0, 12, 11].map(run)
        // One slow run in B is an outlier, not a regression.
        let oneSlow = RunComparison(
            a: side("A", a), b: side("B", try [30.0, 11, 12].map(run)), rules: ComparisonRules())
        #expect(!oneSlow.regressed, "\(oneSlow.table())")
        let p50 = try row(oneSlow, "op_ack", "p50")
        #expect(p50.a == 12 && p50.b == 12 && p50.aRuns == [10, 12, 11] && p50.bRuns == [30, 11, 12])
        // Most of B slow is.
        let slow = RunComparison(a: side("A", a), b: side("B", try [20.0, 21, 11].map(run)), rules: ComparisonRules())
        #expect(slow.regressed)
        #expect(try row(slow, "op_ack", "p50").b == 20)
        #expect(slow.table().contains("A worst of 3") && slow.table().contains("B median of 3"))
        // A side with one run is its own worst and median.
        let mixed = RunComparison(
            a: side("A", [try run(12)]), b: side("B", try [12.5, 13.5].map(run)), rules: ComparisonRules())
        #expect(!mixed.regressed, "\(mixed.table())")
        #expect(try row(mixed, "op_ack", "p50").b == 13)
    }

    @Test func repeatsCountVerdictsByWorstAndThresholdsByMajority() throws {
        let t = "op_ack.p99 < 50ms"
        func run(_ met: Bool, _ verdict: String = "valid") throws -> RunSummary {
            try live(
                ["op_ack": (400, 1, 2, 3, 4)], thresholds: [("\(t) (measured \(met ? 40 : 60)ms)", met)],
                verdict: verdict)
        }
        let a = try [run(true), run(true), run(true)]
        let once = RunComparison(
            a: side("A", a), b: side("B", try [run(false), run(true), run(true)]), rules: ComparisonRules())
        #expect(!once.regressed, "one breach in three runs is not a regression")
        #expect(once.verdicts.first { $0.name == "threshold \(t)" }?.b == "2/3 met")
        let mostly = RunComparison(
            a: side("A", a), b: side("B", try [run(false), run(false), run(true)]), rules: ComparisonRules())
        #expect(mostly.regressed)
        // A correctness violation in any run counts.
        let invalid = RunComparison(
            a: side("A", a), b: side("B", try [run(true), run(true, "invalid"), run(true)]), rules: ComparisonRules())
        #expect(invalid.regressed)
        #expect(invalid.verdicts.first { $0.name == "verdict" }?.b == "invalid")
    }

    @Test func longLabelsKeepTheirColumns() throws {
        let long = "op_remote_apply.p99 < 250ms"
        let a = try live(["op_remote_apply": (400, 1, 2, 3, 4)], thresholds: [("\(long) (measured 3.00ms)", true)])
        let table = RunComparison(a: side("A", [a]), b: side("B", [a]), rules: ComparisonRules()).table()
        let line = try #require(table.split(separator: "\n").first { $0.hasPrefix("threshold \(long)") })
        #expect(line.contains("\(long)  met (3.00ms)"), "\(line)")
        let latency = try #require(table.split(separator: "\n").first { $0.hasPrefix("op_remote_apply max (ms)") })
        #expect(latency.contains("(ms)  "), "\(latency)")
    }

    @Test func thresholdKeysDropTheMeasuredValue() {
        #expect(
            RunComparison.thresholdKey("op_ack.p99 < 250ms (measured 371.45ms)") == ("op_ack.p99 < 250ms", "371.45ms"))
        #expect(RunComparison.thresholdKey("soql.count >= 1 (no samples)") == ("soql.count >= 1", "no samples"))
        #expect(RunComparison.thresholdKey("convergence == valid") == ("convergence == valid", nil))
    }

    @Test func repeatExitCodeIsTheWorstRunsInOrder2Then1Then3() throws {
        #expect(RepeatSummary.worstExitCode([0, 3, 1]) == 1)
        #expect(RepeatSummary.worstExitCode([1, 2, 3]) == 2)
        #expect(RepeatSummary.worstExitCode([0, 3, 0]) == 3)
        #expect(RepeatSummary.worstExitCode([0, 0]) == 0)
        let runs = [
            RepeatSummary.Run(
                seed: 4, directory: "../a-seed4", verdict: "valid", exitCode: 0, opAckP99Ms: 12.5, wallSeconds: 9),
            RepeatSummary.Run(
                seed: 5, directory: "../a-seed5", verdict: "valid", exitCode: 1, opAckP99Ms: 80, wallSeconds: 9),
            RepeatSummary.Run(
                seed: 6, directory: nil, verdict: "unknown", exitCode: 3, opAckP99Ms: nil, wallSeconds: 1,
                error: "could not start",
                reason: "inconclusive (exit 3): the machine was busy with other processes"),
        ]
        // A run that passed has no reason, whatever was passed in.
        #expect(
            RepeatSummary.Run(
                seed: 7, directory: nil, verdict: "valid", exitCode: 0, opAckP99Ms: 1, wallSeconds: 1, reason: "x"
            ).reason == nil)
        #expect(
            RepeatSummary.line(runs[2], index: 2, of: 3).hasSuffix(
                ": inconclusive (exit 3): the machine was busy with other processes"))
        let s = RepeatSummary(scenario: "tiny", firstSeed: 4, runs: runs)
        #expect(s.exitCode == 1)
        #expect(s.failures == ["threshold": [5], "inconclusive": [6]])
        let table = s.table()
        #expect(table.contains("threshold (exit 1): seeds 5"))
        #expect(table.contains("correctness (exit 2): none"))
        #expect(table.contains("inconclusive (exit 3): seeds 6"))
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try s.write(to: dir.path)
        #expect(try RepeatSummary.load(dir.path) == s)
        #expect(s.runDirectories(in: dir.path) == [dir.path + "/../a-seed4", dir.path + "/../a-seed5"])
        #expect(
            try String(contentsOf: dir.appendingPathComponent("report.html"), encoding: .utf8).contains(
                "href=\"../a-seed4/report.html\""))
        #expect(
            try String(contentsOf: dir.appendingPathComponent("report.html"), encoding: .utf8).contains(
                "the machine was busy with other processes"))
        // A run directory's summary.json is not a repeat summary.
        let run = try Support.copyOfRun(
            try FileManager.default.contentsOfDirectory(atPath: Support.fixtures.appendingPathComponent("runs").path)
                .sorted()[0])
        #expect(try RepeatSummary.load(run.path) == nil)
    }
}
