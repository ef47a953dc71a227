import Foundation
import Testing

/// `whalesim report` run as a subprocess on run directories written by `whalesim simulate`.
/// What each bad input gets: a missing directory, a directory without run.json, a run.json that
/// is not JSON or lacks a key, an unsupported schemaVersion, a missing, truncated or corrupt history
/// (history.whr, or an older run's history.jsonl),
/// no RUN_DIR, RUN_DIR and --compare together, --compare with one directory, and a
/// --max-regression that is not a percentage all exit 64 with one line naming the problem.
@Suite(.serialized) struct ReportCommandTests {
    let cli = SimulateCommandTests()

    /// A fresh simulated run (convergence-smoke, seed 3, 60 ops) in a temporary Reports root.
    func simulatedRun() throws -> (root: URL, run: URL) {
        let root = try cli.temporaryDirectory()
        let sim = try cli.whalesim(["simulate", "--seed", "3", "--ops", "60", "--report-dir", root.path])
        #expect(sim.status == 0, "\(sim.stdout)\(sim.stderr)")
        let link = root.appendingPathComponent("convergence-smoke/latest")
        let target = try FileManager.default.destinationOfSymbolicLink(atPath: link.path)
        return (root, root.appendingPathComponent("convergence-smoke").appendingPathComponent(target))
    }

    @Test func reRendersTheThreeFilesFromTheRecord() throws {
        let (root, run) = try simulatedRun()
        defer { try? FileManager.default.removeItem(at: root) }
        let summary = try Data(contentsOf: run.appendingPathComponent("summary.json"))
        for file in ["report.html", "junit.xml", "summary.json"] {
            try FileManager.default.removeItem(at: run.appendingPathComponent(file))
        }
        let out = try cli.whalesim(["report", run.path])
        #expect(out.status == 0, "\(out.stdout)\(out.stderr)")
        #expect(out.stdout.contains("report.html") && out.stdout.contains("junit.xml"))
        #expect(try Data(contentsOf: run.appendingPathComponent("summary.json")) == summary)
        let html = try String(contentsOf: run.appendingPathComponent("report.html"), encoding: .utf8)
        #expect(html.hasPrefix("<!DOCTYPE html>") && html.contains("convergence-smoke"))
        // A latest link works as RUN_DIR.
        #expect(try cli.whalesim(["report", root.appendingPathComponent("latest").path]).status == 0)
    }

    @Test func badRecordsExit64WithTheProblem() throws {
        let (root, run) = try simulatedRun()
        defer { try? FileManager.default.removeItem(at: root) }
        let fm = FileManager.default
        func copy(_ name: String, _ change: (URL) throws -> Void) throws -> URL {
            let dir = root.appendingPathComponent(name)
            try fm.copyItem(at: run, to: dir)
            try change(dir)
            return dir
        }
        var cases: [(URL, String)] = [(root.appendingPathComponent("nope"), "no such run directory")]
        cases.append(
            (
                try copy("no-record") { try fm.removeItem(at: $0.appendingPathComponent("run.json")) },
                "no run record (run.json)"
            ))
        cases.append(
            (
                try copy("not-json") { try Data("{oops".utf8).write(to: $0.appendingPathComponent("run.json")) },
                "not a run record: invalid JSON"
            ))
        cases.append(
            (
                try copy("no-key") {
                    try Data("{\"schemaVersion\": 2}".utf8).write(to: $0.appendingPathComponent("run.json"))
                }, "not a run record: missing key"
            ))
        cases.append(
            (
                try copy("future") { dir in
                    let file = dir.appendingPathComponent("run.json")
                    let text = try String(contentsOf: file, encoding: .utf8).replacingOccurrences(
                        of: "\"schemaVersion\":3", with: "\"schemaVersion\":99")
                    try Data(text.utf8).write(to: file)
                }, "schemaVersion 99 is not supported"
            ))
        cases.append(
            (
                try copy("no-history") { try fm.removeItem(at: $0.appendingPathComponent("history.whr")) },
                "history.whr: missing (nor is there a history.jsonl)"
            ))
        cases.append(
            (
                try copy("cut-history") { dir in
                    let file = dir.appendingPathComponent("history.whr")
                    let bytes = try Data(contentsOf: file)
                    try bytes.prefix(bytes.count / 2).write(to: file)
                }, "history.whr: truncated"
            ))
        cases.append(
            (
                try copy("not-whr") {
                    try Data("{\"t\":0,\"type\":\"heal\"}\n".utf8).write(to: $0.appendingPathComponent("history.whr"))
                }, "not a whalesim history file"
            ))
        // An older run directory: JSON lines, one of them garbage.
        cases.append(
            (
                try copy("bad-history") { dir in
                    let text = try RecordFiles.history(dir) + "garbage\n"
                    try fm.removeItem(at: dir.appendingPathComponent("history.whr"))
                    try Data(text.utf8).write(to: dir.appendingPathComponent("history.jsonl"))
                }, "not a history line"
            ))
        for (dir, message) in cases {
            let out = try cli.whalesim(["report", dir.path])
            #expect(out.status == 64, "\(dir.lastPathComponent): \(out.stdout)\(out.stderr)")
            #expect(out.stderr.contains(message), "\(dir.lastPathComponent): \(out.stderr)")
        }
        #expect(try cli.whalesim(["report"]).status == 64)
        let one = try cli.whalesim(["report", "--compare", run.path])
        #expect(one.status == 64 && one.stderr.contains("exactly two run directories"))
        let both = try cli.whalesim(["report", run.path, "--compare", run.path, run.path])
        #expect(both.status == 64 && both.stderr.contains("either RUN_DIR or --compare A B"))
        let percent = try cli.whalesim(["report", "--compare", run.path, run.path, "--max-regression", "lots"])
        #expect(percent.status == 64 && percent.stderr.contains("--max-regression lots"))
    }

    @Test func compareExitsOneOnlyWhenBRegressed() throws {
        let (root, run) = try simulatedRun()
        defer { try? FileManager.default.removeItem(at: root) }
        let same = try cli.whalesim(["report", "--compare", run.path, run.path, "--out", root.path])
        #expect(same.status == 0, "\(same.stdout)\(same.stderr)")
        #expect(same.stdout.contains("op_ack p99 (ticks)"))
        #expect(same.stdout.contains("no regression (max regression 10.0 %, floor"))
        #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("compare.html").path))
        #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("compare.json").path))
        // B's convergence turned invalid: a worse verdict.
        let worse = root.appendingPathComponent("worse")
        try FileManager.default.copyItem(at: run, to: worse)
        let file = worse.appendingPathComponent("run.json")
        let text = try String(contentsOf: file, encoding: .utf8)
            .replacingOccurrences(
                of: "\"checker\":\"convergence\",\"evidence\":[],\"verdict\":\"valid\"",
                with: "\"checker\":\"convergence\",\"evidence\":[\"c01 diverged\"],\"verdict\":\"invalid\"")
        #expect(text.contains("\"c01 diverged\""), "the record's layout changed; update this test")
        try Data(text.utf8).write(to: file)
        let regressed = try cli.whalesim(["report", "--compare", run.path, worse.path])
        #expect(regressed.status == 1, "\(regressed.stdout)\(regressed.stderr)")
        #expect(regressed.stdout.contains("checker convergence") && regressed.stdout.contains("WORSE"))
        #expect(FileManager.default.fileExists(atPath: worse.appendingPathComponent("compare.html").path))
    }

    /// A run directory from before the compact history (history.jsonl, an indented schema-2
    /// run.json) renders and compares against one written now.
    @Test func olderRunDirectoriesRenderAndCompareAcrossForms() throws {
        let (root, run) = try simulatedRun()
        defer { try? FileManager.default.removeItem(at: root) }
        let fm = FileManager.default
        let older = root.appendingPathComponent("older")
        try fm.copyItem(at: run, to: older)
        let lines = try RecordFiles.history(older)
        try fm.removeItem(at: older.appendingPathComponent("history.whr"))
        try Data(lines.utf8).write(to: older.appendingPathComponent("history.jsonl"))
        var record = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: older.appendingPathComponent("run.json")))
                as? [String: Any])
        record["schemaVersion"] = 2
        try JSONSerialization.data(withJSONObject: record, options: [.prettyPrinted, .sortedKeys]).write(
            to: older.appendingPathComponent("run.json"))
        for file in ["report.html", "junit.xml", "summary.json"] {
            try fm.removeItem(at: older.appendingPathComponent(file))
        }

        let rendered = try cli.whalesim(["report", older.path])
        #expect(rendered.status == 0, "\(rendered.stdout)\(rendered.stderr)")
        let a = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: older.appendingPathComponent("summary.json")))
                as? [String: Any])
        let b = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: run.appendingPathComponent("summary.json")))
                as? [String: Any])
        #expect(a["latency"] as? NSDictionary == b["latency"] as? NSDictionary)
        #expect(a["counts"] as? NSDictionary == b["counts"] as? NSDictionary)
        for (x, y) in [(older, run), (run, older)] {
            let compared = try cli.whalesim(["report", "--compare", x.path, y.path, "--out", root.path])
            #expect(compared.status == 0, "\(compared.stdout)\(compared.stderr)")
            #expect(compared.stdout.contains("no regression"))
        }
    }
}
