import ArgumentParser
import Foundation
import WhaleReports

/// `whalesim report RUN_DIR`: re-renders `report.html`, `junit.xml` and `summary.json` from a
/// run directory's record. `whalesim report --compare A B`: two runs side by side, exit 1 on
/// a regression, for CI.
///
/// ```
/// whalesim report Reports/flaky-network/latest
/// whalesim report --compare Reports/base/run Reports/flaky-network/latest --max-regression 10%
/// ```
struct ReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Render a run directory's report.html, junit.xml and summary.json, or compare two runs.",
        discussion: """
            RUN_DIR holds run.json and history.jsonl (docs/run-record.md); a `latest` link works. \
            --compare A B prints latency deltas, verdict changes and counts, and writes compare.html and \
            compare.json (into B, or --out). Exit codes: 0 rendered / no regression, 1 B regressed \
            (a latency percentile grew past --max-regression, or a verdict or threshold got worse), \
            64 a missing or corrupt run record.
            """
    )

    @Argument(help: "The run directory to render.")
    var runDirectory: String?

    @Option(name: .customLong("compare"), parsing: .upToNextOption, help: ArgumentHelp("Compare run B against run A.", valueName: "A B"))
    var compare: [String] = []

    @Option(help: "The latency growth that counts as a regression, in percent (10% or 10).")
    var maxRegression = "10%"

    @Option(help: "Where compare.html and compare.json go (default: B's directory).")
    var out: String?

    func run() async throws {
        do {
            if compare.isEmpty {
                guard let runDirectory else { throw BadInput("report: give a run directory, or --compare A B") }
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
            let comparison = try Self.compare(compare[0], compare[1], maxRegression: limit)
            print(comparison.table(), terminator: "")
            let dir = out ?? compare[1]
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            try Data(comparison.html().utf8).write(to: URL(fileURLWithPath: (dir as NSString).appendingPathComponent("compare.html")))
            try comparison.json().write(to: URL(fileURLWithPath: (dir as NSString).appendingPathComponent("compare.json")))
            print("compare: \((dir as NSString).appendingPathComponent("compare.html"))")
            if comparison.regressed { throw ExitStatus.thresholdBreached }
        } catch let error as BadInput {
            throw error.exit()
        } catch let error as ReportError {
            throw BadInput(error.description).exit()
        }
    }

    static func compare(_ a: String, _ b: String, maxRegression: Double) throws -> RunComparison {
        func summary(_ path: String) throws -> RunSummary {
            let run = try RunDirectory.load(path)
            return RunSummary(run: run, series: ReportFiles.series(for: run))
        }
        return RunComparison(a: (a, try summary(a)), b: (b, try summary(b)), maxRegression: maxRegression)
    }

    /// "10%", "10" or "2.5%" → 0.1, 0.1, 0.025; nil for anything else or a negative value.
    static func percent(_ text: String) -> Double? {
        let digits = text.hasSuffix("%") ? String(text.dropLast()) : text
        guard let v = Double(digits.trimmingCharacters(in: .whitespaces)), v >= 0, v.isFinite else { return nil }
        return v / 100
    }
}
