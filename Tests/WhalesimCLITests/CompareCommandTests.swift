import Foundation
import Testing

/// Issue 19 end to end: `whalesim run --repeat` and `whalesim report --compare` on live runs.
/// Two repeats of one binary (different seeds) must compare as no regression; the same binary
/// against a server that holds every ack 5 ms (`serve --delay-acks 5`) must compare as one.
/// Each side is a fresh `:memory:` server, 20 clients on 4 notes for 5 s of typing; the delay
/// shows at op→ack p50 (hundreds of samples a run), far past the 2 ms floor, while the noise
/// of a busy 2-core machine stays under it at p50 and is absorbed by the spread rule.
@Suite(.serialized) struct CompareCommandTests {
    let cli = RunCommandTests()

    static let scenario = """
        name: live-compare
        mode: live
        seed: 4
        text: {alphabet: ascii, initial: "Call notes:\\n"}
        clients: {count: 20, documents: 4, protocol: 2}
        mix: {typing-burst: 50, delete: 10, select: 5, same-position-insert: 5, idle: 5}
        live:
          duration: 5s
          load: {profile: constant}
          think-time: {distribution: exponential, mean: 200, max: 1000}
          keystroke: {distribution: uniform, min: 20, max: 60}
          import: {pages: 0}
          quiescence: 10s
        checkers: [convergence, intention, revisions, liveness]
        thresholds: [convergence == valid, intention == valid, "op_ack.p99 < 2s"]
        """

    /// `run --repeat 2` against a fresh server started with `serveArguments`; returns the run's
    /// output and its repeat directory.
    func repeatRun(seed: Int, in dir: URL, serveArguments: [String] = [], attempt: Int = 1) throws -> (
        RunCommandTests.Run, URL
    ) {
        let server = try ServeProcess(database: ":memory:", arguments: serveArguments)
        defer { server.stop() }
        let file = dir.appendingPathComponent("compare.yml")
        try Self.scenario.write(to: file, atomically: true, encoding: .utf8)
        let reports = dir.appendingPathComponent("Reports-\(seed)-\(serveArguments.joined())-\(attempt)")
        let run = try cli.whalesim([
            "run", file.path, "--server", server.url, "--seed", "\(seed)", "--repeat", "2",
            "--report-dir", reports.path, "--quiet",
        ])
        let link = reports.appendingPathComponent("live-compare/latest-repeat")
        return (run, link.resolvingSymlinksInPath())
    }

    func runDirectories(_ repeatDir: URL) throws -> [URL] {
        let summary = try #require(
            JSONSerialization.jsonObject(with: Data(contentsOf: repeatDir.appendingPathComponent("summary.json")))
                as? [String: Any])
        let runs = try #require(summary["runs"] as? [[String: Any]])
        return runs.compactMap { $0["directory"] as? String }.map {
            repeatDir.appendingPathComponent($0).standardizedFileURL
        }
    }

    /// `report --compare A B`. A comparison that will not judge because a run was measured on a
    /// busy machine (exit 3, saying so) is right to refuse, and says nothing about the rule under
    /// test: both sides are measured again, twice at most, before its answer is taken. (A CI
    /// machine busy beside the tests made this test fail once on a comparison that was right.)
    func judgedCompare(_ a: URL, _ b: URL, again: (Int) throws -> (URL, URL), out: URL) throws -> (
        RunCommandTests.Run, URL, URL
    ) {
        var (a, b) = (a, b)
        var result = try cli.whalesim(["report", "--compare", a.path, b.path, "--out", out.path])
        for attempt in 2...3 where Self.unjudgedOnABusyMachine(result) {
            (a, b) = try again(attempt)
            result = try cli.whalesim(["report", "--compare", a.path, b.path, "--out", out.path])
        }
        return (result, a, b)
    }

    @Test func sameBinaryPassesAndAPlanted5msAckDelayRegresses() throws {
        let dir = try cli.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }

        let a: RunCommandTests.Run
        var aDir: URL
        (a, aDir) = try repeatRun(seed: 4, in: dir)
        #expect(a.status == 0, "A: \(a.all)")
        // The repeat's own output: a line per run, the table, the repeat directory.
        #expect(a.stdout.contains("run 1/2 seed 4: valid, exit 0 (pass), op_ack p99 "), "\(a.stdout)")
        #expect(a.stdout.contains("run 2/2 seed 5: valid, exit 0 (pass)"))
        #expect(a.stdout.contains("repeat: 2 runs of live-compare, seeds 4...5"))
        #expect(a.stdout.contains("correctness (exit 2): none"))
        #expect(a.stdout.contains("verdict: pass in all 2 runs"))
        #expect(FileManager.default.fileExists(atPath: aDir.appendingPathComponent("report.html").path))
        #expect(aDir.lastPathComponent.hasSuffix("-repeat2"), "\(aDir.path)")
        let aRuns = try runDirectories(aDir)
        #expect(aRuns.count == 2)
        for run in aRuns {
            #expect(FileManager.default.fileExists(atPath: run.appendingPathComponent("run.json").path), "\(run.path)")
        }

        let (b, bDirFirst) = try repeatRun(seed: 6, in: dir)
        var bDir = bDirFirst
        #expect(b.status == 0, "B: \(b.all)")
        let (c, cDirFirst) = try repeatRun(seed: 6, in: dir, serveArguments: ["--delay-acks", "5"])
        var cDir = cDirFirst
        #expect(c.status == 0, "C (delayed acks, still correct): \(c.all)")

        let out = dir.appendingPathComponent("compare")
        // Same binary, repeats on both sides: no regression.
        let same: RunCommandTests.Run
        (same, aDir, bDir) = try judgedCompare(
            aDir, bDir,
            again: { n in
                let (a, aDir) = try repeatRun(seed: 4, in: dir, attempt: n)
                let (b, bDir) = try repeatRun(seed: 6, in: dir, attempt: n)
                #expect(a.status == 0 && b.status == 0, "measured again: \(a.all)\n\(b.all)")
                return (aDir, bDir)
            }, out: out)
        let bRuns = try runDirectories(bDir)
        // A machine busy through all three measurements may leave noise unjudged (exit 3), never a regression.
        #expect(same.status == 0 || Self.unjudgedOnABusyMachine(same), "same binary, two repeats: \(same.all)")
        #expect(same.stdout.contains("A worst of 2") && same.stdout.contains("B median of 2"))
        #expect(same.stdout.contains("no regression"))
        // Same binary, one run against one run (seeds 4 and 6): no regression either.
        let single = try cli.whalesim([
            "report", "--compare", try runDirectories(aDir)[0].path, bRuns[0].path, "--out", out.path,
        ])
        #expect(single.status == 0, "same binary, two seeds: \(single.all)")
        // One threshold, one row, whatever was measured.
        #expect(single.stdout.components(separatedBy: "threshold op_ack.p99 < 2s").count == 2, "\(single.stdout)")

        // The planted delay: caught at op→ack p50, by repeats and by single runs.
        let slow: RunCommandTests.Run
        (slow, aDir, cDir) = try judgedCompare(
            aDir, cDir,
            again: { n in
                let (a, aDir) = try repeatRun(seed: 4, in: dir, attempt: 10 + n)
                let (c, cDir) = try repeatRun(seed: 6, in: dir, serveArguments: ["--delay-acks", "5"], attempt: 10 + n)
                #expect(a.status == 0 && c.status == 0, "measured again: \(a.all)\n\(c.all)")
                return (aDir, cDir)
            }, out: out)
        let cRuns = try runDirectories(cDir)
        let p50 = slow.stdout.split(separator: "\n").first { $0.hasPrefix("op_ack p50 (ms)") }
        if Self.unjudgedOnABusyMachine(slow) {
            // Busy through all three measurements (CI beside other jobs; two busy loops here): the
            // comparison must still see the delay, and say that it will not judge it, and why.
            #expect(
                p50?.hasSuffix("would regress; not judged: a run was measured on a busy machine") == true,
                "\(slow.stdout)")
            return
        }
        #expect(slow.status == 1, "5 ms per ack: \(slow.all)")
        #expect(p50?.hasSuffix("REGRESSED") == true, "\(slow.stdout)")
        #expect(slow.stdout.contains("B regressed against A"))
        let slowSingle = try cli.whalesim([
            "report", "--compare", try runDirectories(aDir)[0].path, cRuns[0].path, "--out", out.path,
        ])
        #expect(slowSingle.status == 1, "5 ms per ack, single runs: \(slowSingle.all)")
        let json = try #require(
            JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("compare.json")))
                as? [String: Any])
        #expect(json["regressed"] as? Bool == true)
    }

    /// Exit 3 because a run was measured on a busy machine: the comparison's right answer there.
    static func unjudgedOnABusyMachine(_ result: RunCommandTests.Run) -> Bool {
        result.status == 3 && result.stdout.contains("not judged: a run was measured on a busy machine")
    }

    @Test func aRepeatReportsEveryRunAndExitsWithTheWorst() throws {
        let dir = try cli.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("tiny.yml")
        try """
        name: live-tiny
        mode: live
        seed: 7
        text: {alphabet: ascii, initial: "Notes:\\n"}
        clients: {count: 3, documents: 1, protocol: 2}
        mix: {typing-burst: 40, delete: 10}
        live:
          duration: 2s
          load: {profile: constant}
          think-time: {distribution: exponential, mean: 200, max: 800}
          import: {pages: 0}
          quiescence: 5s
          foreign-cpu-bound: off
        checkers: [convergence, intention]
        thresholds: [convergence == valid, "op_ack.p99 < 1us"]
        """.write(to: file, atomically: true, encoding: .utf8)
        let reports = dir.appendingPathComponent("Reports")
        let run = try cli.whalesim(["run", file.path, "--repeat", "2", "--report-dir", reports.path, "--quiet"])
        #expect(run.status == 1, "\(run.all)")
        #expect(run.stdout.contains("run 1/2 seed 7: valid, exit 1 (threshold), op_ack p99 "), "\(run.stdout)")
        #expect(run.stdout.contains("run 2/2 seed 8: valid, exit 1 (threshold)"))
        #expect(run.stdout.contains("threshold (exit 1): seeds 7, 8"))
        #expect(run.stdout.contains("correctness (exit 2): none"))
        #expect(run.stdout.contains("inconclusive (exit 3): none"))
        #expect(run.stdout.contains("exit codes: 1 ×2"))
        #expect(run.stdout.contains("verdict: threshold breached (exit 1); 2 of 2 runs did not pass"))
        let repeatDir = reports.appendingPathComponent("live-tiny/latest-repeat").resolvingSymlinksInPath()
        let summary = try #require(
            JSONSerialization.jsonObject(with: Data(contentsOf: repeatDir.appendingPathComponent("summary.json")))
                as? [String: Any])
        #expect(summary["kind"] as? String == "repeat")
        #expect(summary["exitCode"] as? Int == 1)
        #expect((summary["failures"] as? [String: [Int]])?["threshold"] == [7, 8])
        let runs = try #require(summary["runs"] as? [[String: Any]])
        #expect(runs.map { $0["seed"] as? Int } == [7, 8])
        for r in runs {
            let d = repeatDir.appendingPathComponent(try #require(r["directory"] as? String))
            #expect(FileManager.default.fileExists(atPath: d.appendingPathComponent("report.html").path), "\(d.path)")
        }
        let html = try String(contentsOf: repeatDir.appendingPathComponent("report.html"), encoding: .utf8)
        #expect(html.contains("live-tiny: 2 runs, seeds 7…8"))
        // Re-rendering a repeat directory works like a run directory's.
        let rendered = try cli.whalesim(["report", repeatDir.path])
        #expect(rendered.status == 0, "\(rendered.all)")
    }

    @Test func repeatWithShardOrOutOfRangeIsAUsageError() throws {
        let shard = try cli.whalesim(["run", "live-demo", "--repeat", "3", "--shard", "0/2"])
        #expect(shard.status == 64, "\(shard.all)")
        #expect(shard.stderr.contains("--repeat and --shard cannot be combined"))
        let zero = try cli.whalesim(["run", "live-demo", "--repeat", "0"])
        #expect(zero.status == 64)
        #expect(zero.stderr.contains("--repeat 0: must be 1...1000"))
        let floor = try cli.whalesim(["report", "--compare", "a", "b", "--floor", "soon"])
        #expect(floor.status == 64)
        #expect(floor.stderr.contains("--floor soon"))
    }
}
