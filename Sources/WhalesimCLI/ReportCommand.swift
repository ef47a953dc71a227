import ArgumentParser
import Foundation
import WhaleReports

/// `whalesim report RUN_DIR`: re-renders `report.html`, `junit.xml` and `summary.json` from a
/// run directory's record (a repeat directory: its `report.html`). `whalesim report --compare A B`:
/// two runs, or two `run --repeat` directories, side by side; exit 1 on a regression, for CI.
/// The rules (``ComparisonRules``) are meant to pass two runs of one binary: maxima and thin
/// percentiles are shown but not judged, growth under `--floor` is noise, thresholds are keyed
/// by their expression, and with repeats B's median run is held against A's worst.
///
/// ```
/// whalesim report Reports/flaky-network/latest
/// whalesim report --compare Reports/base/run Reports/flaky-network/latest --max-regression 10%
/// whalesim report --compare Reports/live-demo/20260101-120000-repeat5 Reports/live-demo/latest-repeat --floor 2ms
/// ```
struct ReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Render a run directory's report.html, junit.xml and summary.json, or compare two runs.",
        discussion: """
            RUN_DIR holds run.json and history.whr (or an older run's history.jsonl; docs/run-record.md); a `latest` link works. \
            --compare A B prints latency deltas, verdict changes and counts, and writes compare.html and \
            compare.json (into B, or --out). A and B may each be a run directory or a `run --repeat` \
            directory (then B's median run is judged against A's worst run). A latency figure counts \
            only if judged: maxima never are, and a percentile p needs 50 x 100/(100-p) samples in every \
            run (100 for p50, 500 for p90, 5000 for p99); it regressed when it grew past --max-regression, \
            past --floor and past the histograms' 0.1 % precision. Thresholds are matched by their \
            expression, not the measured value. A live run measured on a busy machine (its load generator \
            saturated, or other processes taking its CPU, for more than a tenth of the run) has its slower \
            figures shown, not judged. Exit codes: 0 rendered / no regression, 1 B regressed \
            (a judged latency figure, a verdict or a threshold got worse), 3 inconclusive (latency grew \
            only where a run was measured on a busy machine), 64 a missing or corrupt record.

            Examples:
              whalesim simulate convergence-smoke --seed 7
              whalesim report Reports/convergence-smoke/latest
              whalesim simulate convergence-smoke --seed 7 --report-dir Reports/b
              whalesim report --compare Reports/convergence-smoke/latest \\
                Reports/b/convergence-smoke/latest
            """
    )

    @Argument(help: "The run directory to render.")
    var runDirectory: String?

    @Option(
        name: .customLong("compare"), parsing: .upToNextOption,
        help: ArgumentHelp("Compare run B against run A.", valueName: "A B"))
    var compare: [String] = []

    @Option(help: "The latency growth that counts as a regression, in percent (10% or 10).")
    var maxRegression = "10%"

    @Option(help: "Latency growth under this is never a regression, in the runs' unit (2ms, or 2 for ticks).")
    var floor = "2ms"

    @Option(help: "Where compare.html and compare.json go (default: B's directory).")
    var out: String?

    func run() async throws {
        do {
            if compare.isEmpty {
                guard let runDirectory else { throw BadInput("report: give a run directory, or --compare A B") }
                if let repeatSummary = try RepeatSummary.load(runDirectory) {
                    try repeatSummary.write(to: runDirectory)
                    for file in ["summary.json", "report.html"] {
                        print((runDirectory as NSString).appendingPathComponent(file))
                    }
                    return
                }
                let run = try RunDirectory.load(runDirectory)
                let files = try ReportFiles.write(run)
                for file in files { print((runDirectory as NSString).appendingPathComponent(file)) }
                return
            }
            guard runDirectory == nil else { throw BadInput("give either RUN_DIR or --compare A B, not both") }
            guard compare.count == 2 else { throw BadInput("--compare takes exactly two run directories, A and B") }
            guard let limit = Self.percent(maxRegression) else {
                throw BadInput("--max-regression \(maxRegression): expected a percentage such as 10% (0 or more)")
            }
            guard let floorValue = Self.amount(floor) else {
                throw BadInput("--floor \(floor): expected an amount such as 2ms or 2 (0 or more)")
            }
            let comparison = try Self.compare(
                compare[0], compare[1], rules: ComparisonRules(maxRegression: limit, floor: floorValue))
            print(comparison.table(), terminator: "")
            let dir = out ?? compare[1]
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            try Data(comparison.html().utf8).write(
                to: URL(fileURLWithPath: (dir as NSString).appendingPathComponent("compare.html")))
            try comparison.json().write(
                to: URL(fileURLWithPath: (dir as NSString).appendingPathComponent("compare.json")))
            print("compare: \((dir as NSString).appendingPathComponent("compare.html"))")
            if comparison.regressed { throw ExitStatus.thresholdBreached }
            if !comparison.unjudged.isEmpty { throw ExitStatus.inconclusive }
        } catch let error as BadInput {
            throw error.exit()
        } catch let error as ReportError {
            throw BadInput(error.description).exit()
        }
    }

    static func compare(_ a: String, _ b: String, rules: ComparisonRules) throws -> RunComparison {
        RunComparison(a: try side(a), b: try side(b), rules: rules)
    }

    /// A run directory (one run) or a repeat directory (each run it lists).
    static func side(_ path: String) throws -> ComparisonSide {
        func summary(_ path: String) throws -> RunSummary {
            let run = try RunDirectory.load(path)
            return RunSummary(run: run, series: ReportFiles.series(for: run))
        }
        guard let repeatSummary = try RepeatSummary.load(path) else {
            return ComparisonSide(path: path, summary: try summary(path))
        }
        let dirs = repeatSummary.runDirectories(in: path)
        guard !dirs.isEmpty else {
            throw BadInput("\(path): a repeat directory with no run directories (every run failed to start)")
        }
        return ComparisonSide(path: path, runs: try dirs.map(summary))
    }

    /// "2ms", "2", "0.5 ms" → 2, 2, 0.5; nil for anything else or a negative value.
    static func amount(_ text: String) -> Double? {
        var t = text.trimmingCharacters(in: .whitespaces)
        if t.hasSuffix("ms") { t = String(t.dropLast(2)).trimmingCharacters(in: .whitespaces) }
        guard let v = Double(t), v >= 0, v.isFinite else { return nil }
        return v
    }

    /// "10%", "10" or "2.5%" → 0.1, 0.1, 0.025; nil for anything else or a negative value.
    static func percent(_ text: String) -> Double? {
        let digits = text.hasSuffix("%") ? String(text.dropLast()) : text
        guard let v = Double(digits.trimmingCharacters(in: .whitespaces)), v >= 0, v.isFinite else { return nil }
        return v / 100
    }
}
