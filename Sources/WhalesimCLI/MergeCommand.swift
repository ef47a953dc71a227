import ArgumentParser
import Foundation
import WhaleRun
import WhaleSim

struct MergeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Combine the run directories of `whalesim run --shard i/N` into one run and report.",
        discussion: """
            HdrHistograms are merged exactly (bucket counts added), per-second series added up on the shared \
            time axis (shards are lined up by their wall-clock starts), the histories joined and judged whole by \
            the checkers, and the thresholds judged on the merged figures. Every slice must be there once. \
            Exit codes as `run`: 0 pass, 1 threshold breached, 2 violation, 3 inconclusive, 64 bad input.

            Examples:
              # one server, both shards at once (each in a shell of its own), the merge
              whalesim serve --port 8080 --database :memory:
              whalesim run live-demo --server http://127.0.0.1:8080 --shard 0/2 \\
                --duration 10s --report-dir Reports/shard0
              whalesim run live-demo --server http://127.0.0.1:8080 --shard 1/2 \\
                --duration 10s --report-dir Reports/shard1
              whalesim merge Reports/shard0/live-demo Reports/shard1/live-demo
            """)

    @Argument(help: "The shards' run directories (Reports/<scenario>/<timestamp>-seed<N>-shardIofN).")
    var directories: [String]

    @Option(help: "Where the merged run directory goes.")
    var reportDir = "Reports"

    func run() async throws {
        guard !directories.isEmpty else { throw BadInput("give the shards' run directories").exit() }
        let merged: LiveMerge.Merged
        do {
            let runs = directories.map(Self.runDirectory)
            let scenario = try LiveMerge.scenario(from: runs[0])
            merged = try LiveMerge.merge(runs, scenario: scenario)
        } catch {
            throw BadInput("\(error)").exit()
        }
        // After the shards (what is wrong with them is the first thing to say), before anything is written.
        if let problem = ReportRoot.problem(reportDir) { throw BadInput(problem).exit() }
        print("merged \(directories.count) shards of \(merged.record.scenario) seed \(merged.record.seed)")
        RunSummaryPrinter.print(merged.result, record: merged.record)
        var written = false
        do {
            let startedAt = Date(timeIntervalSince1970: Double(merged.result.epochStartMs) / 1000)
            var record = merged.record
            record.shard = nil
            let dir = try LiveRecordWriter.write(
                record, history: merged.history, root: reportDir, startedAt: startedAt, suffix: "-merged")
            print("report: \(dir)/report.html")
            written = true
        } catch {
            printError("whalesim: could not write the merged record, so its run directory is incomplete: \(error)")
        }
        print("verdict: \(RunSummaryPrinter.verdictLine(merged.result))")
        throw ExitCode(ReportRoot.exitCode(verdict: merged.result.exitCode, written: written))
    }

    /// A run directory as given, or the newest run under a report root (its `latest` link, or
    /// the one scenario directory's `latest`), as CI artifacts hand them over.
    static func runDirectory(_ path: String) -> String {
        let fm = FileManager.default
        func has(_ p: String) -> Bool { fm.fileExists(atPath: (p as NSString).appendingPathComponent("run.json")) }
        if has(path) { return path }
        let latest = (path as NSString).appendingPathComponent("latest")
        if has(latest) { return (latest as NSString).resolvingSymlinksInPath }
        return path
    }
}
