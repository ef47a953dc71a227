import ArgumentParser
import Foundation
import WhaleRecord
import WhaleReports
import WhaleRun
import WhaleSim

/// `whalesim reproduce RUN_DIR [--note ID]`: a run's failing note becomes a scripted simulator
/// scenario (`RUN_DIR/reproducer.yml`) that fails the same checker every time, then shrinks
/// (`RUN_DIR/reproducer-shrunk.yml`).
///
/// ```
/// whalesim reproduce Reports/live-demo/latest
/// whalesim simulate Reports/live-demo/latest/reproducer-shrunk.yml
/// ```
struct ReproduceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reproduce",
        abstract: "Turn a run's first violation into a deterministic scripted simulator scenario, and shrink it.",
        discussion: """
            Reads RUN_DIR/run.json and RUN_DIR's history (history.whr, or an older run's history.jsonl; docs/run-record.md), cuts the failing note's \
            history into RUN_DIR/reproducer.yml (docs/scripted-scenarios.md), runs it in the simulator, checks \
            that the same checker fails with the same kind of evidence, shrinks it into \
            RUN_DIR/reproducer-shrunk.yml and prints the replay commands. When the run loaded a server \
            whalesim did not start (--server) and the script does not fail against whalesim's correct \
            server, it runs it again with each server-side catalog fault the script can exercise (then \
            pairs), within --diagnose-seconds, and names the fault the server behaves like; the \
            reproducer files then carry it (docs/scripted-scenarios.md). Exit codes: 0 reproduced, \
            3 not reproduced in simulation (the reasons are printed; the live replay stays), 64 bad input.

            Examples:
              # after a live run that found a violation (its summary says so)
              whalesim reproduce Reports/live-demo/latest
              whalesim reproduce Reports/live-demo/latest --shrink-seconds 10
            """
    )

    @Argument(help: "A run directory (with run.json and history.whr or history.jsonl).")
    var runDir: String

    @Option(help: "The note to reproduce (default: the one the first violation names).")
    var note: String?

    @Option(help: "Seconds the shrinker may spend.")
    var shrinkSeconds: Double = 60

    @Flag(help: "Do not shrink the reproducer.")
    var noShrink = false

    @Option(
        help:
            "Seconds the diagnosis may spend trying the catalog's faults (runs only when the script does not fail against whalesim's correct server and the run loaded a --server)."
    )
    var diagnoseSeconds: Double = 60

    func run() async throws {
        guard shrinkSeconds > 0, shrinkSeconds.isFinite else {
            throw BadInput("--shrink-seconds \(shrinkSeconds): expected a number of seconds above 0").exit()
        }
        guard diagnoseSeconds > 0, diagnoseSeconds.isFinite else {
            throw BadInput("--diagnose-seconds \(diagnoseSeconds): expected a number of seconds above 0").exit()
        }
        do {
            let report = try ReproduceStep.run(
                runDir: runDir, note: note, shrinkSeconds: noShrink ? nil : shrinkSeconds,
                diagnoseSeconds: diagnoseSeconds)
            for line in report.lines { print(line) }
            // The report and summary.json link the reproducer and say the diagnosis.
            do { try ReportFiles.write(RunDirectory.load(runDir)) } catch {
                printError("whalesim: could not re-render the run's report: \(error)")
            }
            throw report.exitCode
        } catch let error as ReproduceError {
            throw BadInput(error.message).exit()
        }
    }
}

/// The work of `reproduce`, shared with `whalesim run` (which reproduces its own first violation).
enum ReproduceStep {
    struct Report {
        var lines: [String]
        var exitCode: ExitCode
        var reproduction: Reproduction
    }

    static let fileName = "reproducer.yml"
    static let shrunkFileName = "reproducer-shrunk.yml"
    static let summaryFileName = "reproducer.json"

    /// Reads the record, writes the reproducer files and `reproducer.json`, and says what happened.
    static func run(runDir: String, note: String?, shrinkSeconds: Double?, diagnoseSeconds: Double) throws -> Report {
        let dir = URL(fileURLWithPath: runDir).resolvingSymlinksInPath()
        func read(_ name: String) throws(ReproduceError) -> String {
            let path = dir.appendingPathComponent(name).path
            guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8)
            else {
                throw ReproduceError(
                    "cannot read \(path) (a run directory holds run.json and history.whr or history.jsonl)")
            }
            return text
        }
        let summary = try LiveRecordSummary.read(try read("run.json"), source: "run.json")
        let lines: [NamedHistoryLine]
        do { lines = try RecordHistory.readNamed(try HistoryFiles.history(in: dir.path)) } catch let e
            as HistoryDecodeError
        {
            throw ReproduceError(e.message)
        } catch let e as RecordFileError {
            throw ReproduceError("\(e.message) (a run directory holds run.json and history.whr or history.jsonl)")
        }
        let deadline = Date().addingTimeInterval(shrinkSeconds ?? 0)
        let r = try Reproduction.make(
            summary: summary, lines: lines, requestedNote: note, deadline: deadline, shrink: shrinkSeconds != nil,
            diagnose: summary.foreignSide, diagnosisDeadline: Date().addingTimeInterval(diagnoseSeconds))

        let path = dir.appendingPathComponent(fileName).path
        let shrunkPath = dir.appendingPathComponent(shrunkFileName).path
        var head = [
            "Cut by `whalesim reproduce` from \(summary.scenario) seed \(summary.seed), note \(r.note.name), \(r.checker.rawValue) invalid.",
            "Live replay: \(summary.replayCommand)", "Replay: whalesim simulate <this file>",
        ]
        if let best = r.diagnosis?.matches.first {
            head.append(
                "Diagnosed: the live server behaves like \(best.faults.map(\.rawValue).joined(separator: " + ")); this file switches it on in the simulated server."
            )
        }
        try r.scenario.scriptedYAML(comments: head).write(toFile: path, atomically: true, encoding: .utf8)
        if let shrunk = r.shrunk {
            try shrunk.scenario.scriptedYAML(
                comments: head + [
                    "Shrunk in \(shrunk.runs) simulations from \(r.scenario.clients) clients, \(r.scenario.script!.steps.count) steps."
                ]
            )
            .write(toFile: shrunkPath, atomically: true, encoding: .utf8)
        }

        var out: [String] = []
        out.append(
            "reproduce \(runDir): note \(r.note.name) (\(r.note.clients.count) clients), \(r.checker.rawValue) invalid in the run"
        )
        for line in r.liveEvidence.prefix(3) { out.append("    live: \(line)") }
        let s = r.scenario
        out.append("  reproducer: \(path) (\(s.clients) clients, \(s.script!.steps.count) steps, \(s.ops) edits)")
        let simulated = r.result.results.first { $0.checker == r.checker }
        out.append(
            "  simulated: \(r.checker.rawValue) \(simulated?.verdict.rawValue ?? "not run"): \(r.status.rawValue)")
        for line in (simulated?.evidence ?? []).prefix(3) { out.append("    simulated: \(line)") }
        if let d = r.diagnosis { out += ReproduceDiagnosis.lines(d, server: summary.server) }
        out.append("  server order: \(r.serverOrder)")
        for n in r.notes { out.append("  note: \(n)") }
        if let shrunk = r.shrunk {
            let t = shrunk.scenario
            out.append(
                "  shrunk (\(shrunk.runs) runs) to \(t.clients) clients, \(t.script!.steps.count) steps, \(t.ops) edits: \(shrunkPath)"
            )
            for step in t.script!.steps.prefix(40) { out.append("    \(Scenario.stepLine(step, clients: t.clients))") }
            if t.script!.steps.count > 40 { out.append("    … \(t.script!.steps.count - 40) more steps") }
            for line in (shrunk.result.results.first { $0.checker == r.checker }?.evidence ?? []).prefix(3) {
                out.append("    shrunk: \(line)")
            }
        }
        out.append("replay live:      \(summary.replayCommand)")
        if r.status == .notReproduced {
            out.append("not reproduced in simulation: the live replay above is the reproducer (exit 3)")
        } else {
            out.append("replay simulated: \(ShellCommand.line(["whalesim", "simulate", path]))")
            if r.shrunk != nil {
                out.append("replay shrunk:    \(ShellCommand.line(["whalesim", "simulate", shrunkPath]))")
            }
        }
        try writeSummary(r, dir: dir, live: summary.replayCommand, server: summary.server)
        return Report(
            lines: out, exitCode: r.status == .notReproduced ? ExitStatus.inconclusive : ExitStatus.pass,
            reproduction: r)
    }

    /// `reproducer.json`: what the report links (docs/run-record.md).
    static func writeSummary(_ r: Reproduction, dir: URL, live: String, server: String?) throws {
        var o: [String: Any] = [
            "schemaVersion": 1, "note": r.note.name, "checker": r.checker.rawValue, "status": r.status.rawValue,
            "serverOrder": r.serverOrder, "notes": r.notes, "liveEvidence": r.liveEvidence, "liveReplay": live,
            "reproducer": fileName,
            "replay": ShellCommand.line(["whalesim", "simulate", dir.appendingPathComponent(fileName).path]),
            "simulatedEvidence": r.result.results.first { $0.checker == r.checker }?.evidence ?? [],
        ]
        if let d = r.diagnosis { o["diagnosis"] = ReproduceDiagnosis.json(d, server: server) }
        if let shrunk = r.shrunk {
            let t = shrunk.scenario
            o["shrunk"] =
                [
                    "file": shrunkFileName,
                    "replay": ShellCommand.line([
                        "whalesim", "simulate", dir.appendingPathComponent(shrunkFileName).path,
                    ]),
                    "clients": t.clients, "steps": t.script!.steps.count, "edits": t.ops, "runs": shrunk.runs,
                    "script": t.script!.steps.map { Scenario.stepLine($0, clients: t.clients) },
                    "evidence": shrunk.result.results.first { $0.checker == r.checker }?.evidence ?? [],
                ] as [String: Any]
        }
        let data = try JSONSerialization.data(withJSONObject: o, options: [.prettyPrinted, .sortedKeys])
        try data.write(to: dir.appendingPathComponent(summaryFileName))
    }
}
