import ArgumentParser
import Foundation
import WhaleEmbedded
import WhaleReports
import WhaleRun
import WhaleSim
import WhaleTelemetry

extension RunCommand {
    /// `--repeat N`: seeds seed...seed+N-1 in turn, a line per run, a table, a repeat directory.
    /// Returns the worst exit code (2 > 1 > 3 > 0, ``RepeatSummary/worstExitCode(_:)``).
    func runRepeated(_ base: LiveRunOptions, count: Int, view: LiveView? = nil) async -> Int32 {
        let startedAt = Date()
        var runs: [RepeatSummary.Run] = []
        var lastTelemetry: TelemetrySnapshot?
        for i in 0..<count {
            if let signal = Self.interruption.received {
                print("repeat: interrupted by \(signal); \(count - i) run\(count - i == 1 ? "" : "s") not started")
                break
            }
            var options = base
            options.seed = base.seed + UInt64(i)
            print("repeat: run \(i + 1)/\(count), seed \(options.seed)")
            let outcome = await runOnce(options, detail: false, view: view)
            lastTelemetry = outcome.telemetry ?? lastTelemetry
            // Which directory, relative to the repeat directory (a sibling under the scenario's).
            let relative = outcome.directory.map { "../" + ($0 as NSString).lastPathComponent }
            let entry = RepeatSummary.Run(
                seed: options.seed, directory: relative, verdict: outcome.verdict, exitCode: outcome.exitCode,
                opAckP99Ms: outcome.opAckP99Ms, wallSeconds: outcome.wallSeconds, error: outcome.error,
                reason: outcome.verdictLine)
            runs.append(entry)
            print(RepeatSummary.line(entry, index: i, of: count) + (outcome.directory.map { " → \($0)" } ?? ""))
        }
        let summary = RepeatSummary(
            scenario: base.scenario.name, firstSeed: base.seed, runs: runs,
            startedAt: RunDirectoryLayout.iso8601(startedAt), wallSeconds: Date().timeIntervalSince(startedAt),
            whalesimVersion: WhaleSimVersion.current)
        print("")
        print(summary.table(), terminator: "")
        var repeatReport: String?
        do {
            let dir = try RepeatSummary.createDirectory(
                root: reportDir, scenario: base.scenario.name, count: count, startedAt: startedAt)
            try summary.write(to: dir)
            let scenarioDir = (reportDir as NSString).appendingPathComponent(base.scenario.name)
            try? RunDirectoryLayout.relink(
                (scenarioDir as NSString).appendingPathComponent("latest-repeat"),
                to: (dir as NSString).lastPathComponent)
            print("repeat: \(dir)/report.html")
            repeatReport = URL(fileURLWithPath: dir).appendingPathComponent("report.html").path
        } catch {
            printError("whalesim: could not write the repeat summary: \(error)")
        }
        print("verdict: \(summary.verdictLine)")
        if let view, var final = lastTelemetry {
            // The live view ends on the repeat's verdict, not its last run's.
            final.status.title = "run \(base.scenario.name) --repeat \(count)"
            final.status.verdict = ExitStatus.word(summary.exitCode)
            final.status.verdictNote = summary.verdictLine
            final.status.reportURL = repeatReport.map { "file://" + $0 }
            await view.finish(final)
        }
        return summary.exitCode
    }
}
