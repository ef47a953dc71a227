import Foundation

/// The record of `whalesim run SCENARIO --repeat N`: seeds seed…seed+N−1 run one after another,
/// each writing its own run directory as a single run does; this summary goes into a repeat
/// directory beside them, `Reports/<scenario>/<timestamp>-repeat<N>/` (`summary.json` and
/// `report.html`), and lists each run's directory relative to it (`../<timestamp>-seed4`).
/// `whalesim report --compare` accepts a repeat directory on either side and judges the spread.
///
/// The repeat's exit code is its worst run's in the order 2 > 1 > 3 > 0: a correctness
/// violation outranks everything, a measured threshold breach outranks a run that could not be
/// judged, and the repeat passes only when every run passed.
///
/// ```swift
/// let s = RepeatSummary(scenario: "live-demo", firstSeed: 4, runs: runs)
/// s.exitCode                // worst of the runs' exit codes
/// try s.write(to: dir)      // summary.json + report.html
/// ```
public struct RepeatSummary: Codable, Sendable, Equatable {
    public static let currentSchemaVersion = 1

    public struct Run: Codable, Sendable, Equatable {
        public var seed: UInt64
        /// The run's directory relative to the repeat directory (`../20260101-120000-seed4`);
        /// nil when the run could not start and wrote none.
        public var directory: String?
        /// The run's merged checker verdict (`valid`, `unknown`, `invalid`).
        public var verdict: String
        public var exitCode: Int32
        /// `correctness` (exit 2), `threshold` (exit 1), `inconclusive` (exit 3), nil when it passed.
        public var failure: String?
        public var opAckP99Ms: Double?
        public var wallSeconds: Double
        /// Why the run could not start, if it could not.
        public var error: String?
        /// Why a run that did not pass ended as it did, in a line (its `verdict:` line:
        /// "inconclusive (exit 3): the machine was busy with other processes ..."); nil when it passed.
        public var reason: String?

        public init(
            seed: UInt64, directory: String?, verdict: String, exitCode: Int32, opAckP99Ms: Double?,
            wallSeconds: Double, error: String? = nil,
            reason: String? = nil
        ) {
            self.seed = seed
            self.directory = directory
            self.verdict = verdict
            self.exitCode = exitCode
            failure = RepeatSummary.failureKind(exitCode)
            self.opAckP99Ms = opAckP99Ms
            self.wallSeconds = wallSeconds
            self.error = error
            self.reason = exitCode == 0 ? nil : reason
        }
    }

    public var schemaVersion = RepeatSummary.currentSchemaVersion
    /// Always `repeat`: tells a repeat directory's `summary.json` from a run's.
    public var kind = "repeat"
    public var scenario: String
    public var firstSeed: UInt64
    public var count: Int
    public var startedAt: String?
    public var wallSeconds: Double?
    public var runs: [Run]
    public var exitCode: Int32
    /// The exit codes and how many runs had each, e.g. `{"0": 4, "1": 1}`.
    public var exitCodes: [String: Int]
    /// Seeds by kind of failure: `correctness`, `threshold`, `inconclusive` (only kinds that occurred).
    public var failures: [String: [UInt64]]
    public var whalesimVersion: String?

    public init(
        scenario: String, firstSeed: UInt64, runs: [Run], startedAt: String? = nil, wallSeconds: Double? = nil,
        whalesimVersion: String? = nil
    ) {
        self.scenario = scenario
        self.firstSeed = firstSeed
        count = runs.count
        self.runs = runs
        self.startedAt = startedAt
        self.wallSeconds = wallSeconds
        self.whalesimVersion = whalesimVersion
        exitCode = Self.worstExitCode(runs.map(\.exitCode))
        exitCodes = Dictionary(runs.map { ("\($0.exitCode)", 1) }, uniquingKeysWith: +)
        var failures: [String: [UInt64]] = [:]
        for r in runs { if let f = r.failure { failures[f, default: []].append(r.seed) } }
        self.failures = failures
    }

    /// 2 > 1 > 3 > 0 (anything else, e.g. 64, ranks between 2 and 1 as a broken run).
    public static func severity(_ code: Int32) -> Int {
        switch code {
        case 0: 0
        case 3: 1
        case 1: 2
        case 2: 4
        default: 3
        }
    }

    public static func worstExitCode(_ codes: [Int32]) -> Int32 {
        codes.max { severity($0) < severity($1) } ?? 0
    }

    public static func failureKind(_ code: Int32) -> String? {
        switch code {
        case 0: nil
        case 1: "threshold"
        case 2: "correctness"
        case 3: "inconclusive"
        default: "error"
        }
    }

    /// "pass in all 5 runs", "correctness violated in 1 of 5 runs (exit 2)", ...
    public var verdictLine: String {
        let failed = runs.filter { $0.exitCode != 0 }.count
        let word =
            switch exitCode {
            case 0: "pass"
            case 1: "threshold breached"
            case 2: "correctness violated"
            case 3: "inconclusive"
            default: "failed"
            }
        return exitCode == 0
            ? "pass in all \(count) runs" : "\(word) (exit \(exitCode)); \(failed) of \(count) runs did not pass"
    }

    static func ms(_ v: Double?) -> String { v.map { String(format: "%.2f ms", $0) } ?? "–" }

    /// One line for one run, as `run --repeat` prints it when the run ends.
    public static func line(_ r: Run, index: Int, of total: Int) -> String {
        let outcome = r.exitCode == 0 ? "pass" : "\(r.failure ?? "failed")"
        return
            "run \(index + 1)/\(total) seed \(r.seed): \(r.verdict), exit \(r.exitCode) (\(outcome)), op_ack p99 \(ms(r.opAckP99Ms)), \(String(format: "%.1f", r.wallSeconds)) s"
            + (r.reason.map { ": \($0)" } ?? "")
    }

    /// The table `run --repeat` prints at the end.
    public func table() -> String {
        var rows = [["seed", "verdict", "exit", "failure", "op_ack p99", "wall"]]
        for r in runs {
            rows.append([
                "\(r.seed)", r.verdict, "\(r.exitCode)", r.failure ?? "–", Self.ms(r.opAckP99Ms),
                String(format: "%.1f s", r.wallSeconds),
            ])
        }
        let widths = rows[0].indices.map { i in rows.map { $0[i].count }.max() ?? 0 }
        var out =
            "repeat: \(count) runs of \(scenario), seeds \(firstSeed)...\(firstSeed + UInt64(max(count, 1) - 1))\n"
        for row in rows {
            out +=
                row.indices.map { i in row[i].padding(toLength: widths[i], withPad: " ", startingAt: 0) }.joined(
                    separator: "  "
                )
                .replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression) + "\n"
        }
        let p99s = runs.compactMap(\.opAckP99Ms).sorted()
        if let lo = p99s.first, let hi = p99s.last, let mid = p99s.median {
            out += "op_ack p99: min \(Self.ms(lo)), median \(Self.ms(mid)), max \(Self.ms(hi))\n"
        }
        out +=
            "exit codes: "
            + exitCodes.sorted { Self.severity(Int32($0.key) ?? 0) > Self.severity(Int32($1.key) ?? 0) }.map {
                "\($0.key) ×\($0.value)"
            }.joined(separator: ", ") + "\n"
        for kind in ["correctness", "threshold", "inconclusive", "error"] {
            let label = [
                "correctness": "correctness (exit 2)", "threshold": "threshold (exit 1)",
                "inconclusive": "inconclusive (exit 3)", "error": "could not run",
            ][kind]!
            guard let seeds = failures[kind] else {
                if kind != "error" { out += "\(label): none\n" }
                continue
            }
            out += "\(label): seeds \(seeds.map(String.init).joined(separator: ", "))\n"
        }
        return out
    }

    /// The run directories, resolved against the repeat directory `dir`.
    public func runDirectories(in dir: String) -> [String] {
        runs.compactMap { $0.directory.map { ($0.hasPrefix("/") ? $0 : (dir as NSString).appendingPathComponent($0)) } }
    }

    public func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self) + Data("\n".utf8)
    }

    /// Writes `summary.json` and `report.html` into the repeat directory.
    public func write(to dir: String) throws {
        try json().write(to: URL(fileURLWithPath: (dir as NSString).appendingPathComponent("summary.json")))
        try Data(html().utf8).write(to: URL(fileURLWithPath: (dir as NSString).appendingPathComponent("report.html")))
    }

    /// The repeat summary in `dir`, or nil when `dir` is not a repeat directory (no
    /// `summary.json` of kind `repeat`). A corrupt one throws.
    public static func load(_ dir: String) throws -> RepeatSummary? {
        let file = (dir as NSString).appendingPathComponent("summary.json")
        guard FileManager.default.fileExists(atPath: (dir as NSString).appendingPathComponent("run.json")) == false,
            let data = FileManager.default.contents(atPath: file)
        else { return nil }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            object["kind"] as? String == "repeat"
        else { return nil }
        do { return try JSONDecoder().decode(RepeatSummary.self, from: data) } catch {
            throw ReportError.corrupt("\(file): not a repeat summary: \(error)")
        }
    }

    /// Creates `<root>/<scenario>/<timestamp>-repeat<N>/` (a numeric suffix if taken) and returns it.
    public static func createDirectory(root: String, scenario: String, count: Int, startedAt: Date) throws -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        let scenarioDir = (root as NSString).appendingPathComponent(scenario)
        let base = "\(formatter.string(from: startedAt))-repeat\(count)"
        var name = base
        var n = 2
        while FileManager.default.fileExists(atPath: (scenarioDir as NSString).appendingPathComponent(name)) {
            name = "\(base)-\(n)"
            n += 1
        }
        let dir = (scenarioDir as NSString).appendingPathComponent(name)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// `report.html` of the repeat: the verdict, one row per run linking its report, the failures by kind.
    public func html() -> String {
        let badge = exitCode == 0 ? "valid" : exitCode == 2 ? "invalid" : "unknown"
        var out =
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"color-scheme\" content=\"light dark\"><title>whalesim: \(WhaleReports.html(scenario)) ×\(count)</title><style>\(ReportStyle.css)</style></head><body>\n"
        out +=
            "<h1>\(WhaleReports.html(scenario)): \(count) runs, seeds \(firstSeed)…\(firstSeed + UInt64(max(count, 1) - 1))</h1>\n"
        out +=
            "<p class=\"verdict\"><span class=\"badge \(badge)\">exit \(exitCode)</span> \(WhaleReports.html(verdictLine))</p>\n"
        if let startedAt {
            out +=
                "<p>started \(WhaleReports.html(startedAt))\(wallSeconds.map { String(format: ", %.1f s", $0) } ?? "")</p>\n"
        }
        out +=
            "<h2>Runs</h2>\n<table><tr><th class=\"num\">seed</th><th>verdict</th><th class=\"num\">exit</th><th>failure</th><th class=\"num\">op_ack p99</th><th class=\"num\">wall</th><th>report</th></tr>\n"
        for r in runs {
            let link =
                r.directory.map {
                    "<a href=\"\(WhaleReports.html($0))/report.html\">\(WhaleReports.html(($0 as NSString).lastPathComponent))</a>"
                } ?? WhaleReports.html(r.error ?? "no run directory")
            let cls = r.exitCode == 0 ? "valid" : r.exitCode == 2 ? "invalid" : "unknown"
            out +=
                "<tr><td class=\"num\">\(r.seed)</td><td>\(WhaleReports.html(r.verdict))</td><td class=\"num \(cls)\">\(r.exitCode)</td><td>\(WhaleReports.html(r.failure ?? "–"))\(r.reason.map { "<br><small>\(WhaleReports.html($0))</small>" } ?? "")</td>"
            out +=
                "<td class=\"num\">\(Self.ms(r.opAckP99Ms))</td><td class=\"num\">\(String(format: "%.1f s", r.wallSeconds))</td><td>\(link)</td></tr>\n"
        }
        out += "</table>\n<h2>Failures</h2>\n<ul>\n"
        for (kind, label) in [
            ("correctness", "correctness (exit 2)"), ("threshold", "threshold (exit 1)"),
            ("inconclusive", "inconclusive (exit 3)"), ("error", "could not run"),
        ] {
            guard let seeds = failures[kind] else {
                if kind != "error" { out += "<li>\(label): none</li>\n" }; continue
            }
            out += "<li>\(label): seeds \(seeds.map(String.init).joined(separator: ", "))</li>\n"
        }
        out +=
            "</ul>\n<p>Compare two repeats with <code>whalesim report --compare A B</code>: B's median run is judged against A's worst.</p>\n"
        return out + "</body></html>\n"
    }
}
