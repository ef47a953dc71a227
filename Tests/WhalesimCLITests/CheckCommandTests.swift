import Foundation
import Testing

/// `whalesim check RUN_DIR` as a subprocess: a live run judged again from its history gives the
/// verdicts it recorded, `--checker` narrows it, and each bad input gets its exit code (66 nothing
/// there, 64 a simulator record, a damaged history or an unknown checker).
@Suite(.serialized) struct CheckCommandTests {
    let cli = RunCommandTests()

    @Test func judgesALiveRunAgainAsItWasJudged() throws {
        let dir = try cli.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("tiny.yml")
        try """
        name: live-check
        mode: live
        seed: 3
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
        checkers: [convergence, intention, revisions, cursors]
        """.write(to: file, atomically: true, encoding: .utf8)
        let reports = dir.appendingPathComponent("Reports")
        let run = try cli.whalesim(["run", file.path, "--report-dir", reports.path, "--quiet"])
        #expect(run.status == 0, "\(run.all)")
        let runDir = reports.appendingPathComponent("live-check/latest").resolvingSymlinksInPath()
        let out = try cli.whalesim(["check", runDir.path])
        #expect(out.status == 0, "\(out.all)")
        for name in ["convergence", "cursors", "intention", "revisions"] {
            #expect(out.stdout.contains("\n\(name): valid, 0 evidence\n"), "\(out.stdout)")
        }
        #expect(out.stdout.hasPrefix("live-check seed 3: "), "\(out.stdout)")
        #expect(out.stdout.hasSuffix("verdict: valid\n"), "\(out.stdout)")
        let one = try cli.whalesim(["check", runDir.path, "--checker", "intention"])
        #expect(
            one.status == 0 && one.stdout.contains("intention: valid") && !one.stdout.contains("convergence"),
            "\(one.all)")
        let unknown = try cli.whalesim(["check", runDir.path, "--checker", "nope"])
        #expect(unknown.status == 64 && unknown.stderr.contains("no checker nope"), "\(unknown.all)")

        // A damaged copy: the history cut short.
        let damaged = dir.appendingPathComponent("damaged")
        try FileManager.default.copyItem(at: runDir, to: damaged)
        let history = damaged.appendingPathComponent("history.whr")
        let bytes = try Data(contentsOf: history)
        try bytes.prefix(bytes.count / 2).write(to: history)
        let cut = try cli.whalesim(["check", damaged.path])
        #expect(cut.status == 64, "\(cut.all)")
    }

    @Test func refusesWhatIsNotALiveRecord() throws {
        let missing = try cli.whalesim(["check", "/nonexistent/run"])
        #expect(missing.status == 66, "\(missing.all)")
        let simulated = try cli.whalesim([
            "check", HistoryCommandTests.fixtures.appendingPathComponent("valid-faults").path,
        ])
        #expect(simulated.status == 64 && simulated.stderr.contains("not a live run record"), "\(simulated.all)")
    }
}
