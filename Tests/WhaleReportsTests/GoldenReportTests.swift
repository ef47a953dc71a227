import Foundation
import Testing
import WhaleRecord
import WhaleReports
import WhalesimTesting

/// report.html, junit.xml and summary.json of recorded runs against golden files, with what differs between
/// runs (start time, wall-clock durations) stripped. Re-record after a deliberate change with
/// `WHALESIM_RECORD_GOLDEN=1 swift test --filter GoldenReportTests` and review the diff.
@Suite struct GoldenReportTests {
    static let runs = ["failed-shrunk", "valid-faults"]

    static let strip: [(pattern: String, replacement: String)] = [
        (#"<time class="started">[^<]*</time>"#, #"<time class="started">…</time>"#),
        (#"<span class="wall">[^<]*</span>"#, #"<span class="wall">…</span>"#),
        (#" time="[0-9.]+""#, #" time="…""#),
        (#" timestamp="[^"]*""#, #" timestamp="…""#),
    ]

    @Test(arguments: runs) func reportHTMLMatchesItsGoldenFile(name: String) throws {
        let run = try Support.run(name)
        let html = ReportHTML(run: run, series: ReportFiles.series(for: run)).render()
        let golden = Support.fixtures.appendingPathComponent("golden/\(name).report.html")
        if let problem = GoldenFile.compare(GoldenFile.normalize(html, Self.strip), with: golden) {
            Issue.record(Comment(rawValue: problem))
        }
    }

    @Test(arguments: runs) func junitMatchesItsGoldenFile(name: String) throws {
        let run = try Support.run(name)
        let golden = Support.fixtures.appendingPathComponent("golden/\(name).junit.xml")
        if let problem = GoldenFile.compare(GoldenFile.normalize(JUnitXML(run: run).render(), Self.strip), with: golden)
        {
            Issue.record(Comment(rawValue: problem))
        }
    }

    @Test(arguments: runs) func summaryMatchesItsGoldenFile(name: String) throws {
        let run = try Support.run(name)
        let json = String(
            decoding: try RunSummary(run: run, series: ReportFiles.series(for: run)).json(), as: UTF8.self)
        let golden = Support.fixtures.appendingPathComponent("golden/\(name).summary.json")
        if let problem = GoldenFile.compare(json, with: golden) { Issue.record(Comment(rawValue: problem)) }
    }

    /// The same runs with their histories in the compact form (history.whr, shrunk-history.whr)
    /// render the very same files.
    @Test(arguments: runs) func theCompactFormMatchesTheSameGoldenFiles(name: String) throws {
        let dir = try Support.copyOfRun(name)
        defer { try? FileManager.default.removeItem(at: dir.deletingLastPathComponent()) }
        for (old, new) in [("history.jsonl", "history.whr"), ("shrunk-history.jsonl", "shrunk-history.whr")] {
            let file = dir.appendingPathComponent(old)
            guard FileManager.default.fileExists(atPath: file.path) else { continue }
            let lines = try HistoryFiles.lines(file.path).filter { !$0.isEmpty }.map {
                String(decoding: $0, as: UTF8.self)
            }
            try HistoryFiles.write(lines, to: dir.appendingPathComponent(new).path)
            try FileManager.default.removeItem(at: file)
        }
        let record = dir.appendingPathComponent("run.json")
        try Data(
            try String(contentsOf: record, encoding: .utf8).replacingOccurrences(
                of: "shrunk-history.jsonl", with: "shrunk-history.whr"
            ).utf8
        ).write(to: record)

        let run = try RunDirectory.load(dir.path)
        let original = try Support.run(name)
        #expect(run.history == original.history)
        #expect(run.shrunkHistory == original.shrunkHistory)
        let golden = Support.fixtures.appendingPathComponent("golden")
        let html = ReportHTML(run: run, series: ReportFiles.series(for: run)).render()
        if let problem = GoldenFile.compare(
            GoldenFile.normalize(html, Self.strip), with: golden.appendingPathComponent("\(name).report.html"))
        {
            Issue.record(Comment(rawValue: problem))
        }
        if let problem = GoldenFile.compare(
            GoldenFile.normalize(JUnitXML(run: run).render(), Self.strip),
            with: golden.appendingPathComponent("\(name).junit.xml"))
        {
            Issue.record(Comment(rawValue: problem))
        }
        let json = String(
            decoding: try RunSummary(run: run, series: ReportFiles.series(for: run)).json(), as: UTF8.self)
        if let problem = GoldenFile.compare(json, with: golden.appendingPathComponent("\(name).summary.json")) {
            Issue.record(Comment(rawValue: problem))
        }
    }

    @Test func renderingIsDeterministic() throws {
        let run = try Support.run("failed-shrunk")
        let a = try ReportFiles.render(run), b = try ReportFiles.render(run)
        #expect(a.map(\.data) == b.map(\.data))
    }

    @Test func aFailedRunShowsItsVerdictsTimelineAndReplay() throws {
        let run = try Support.run("failed-shrunk")
        let html = ReportHTML(run: run, series: ReportFiles.series(for: run)).render()
        #expect(html.contains("<span class=\"badge invalid\">invalid</span>"))
        #expect(html.contains("Shrunk history per client"))
        #expect(html.contains("<tr class=\"hit\">"))
        #expect(html.contains(html_(run.record.shrunk!.replayCommand)))
        #expect(html.contains("no Salesforce traffic in this run"))
        #expect(!html.contains("<script"))
        #expect(!html.contains("http://") || !html.contains("src=\"http"))
        // Verdicts come before the charts.
        #expect(html.range(of: "id=\"verdicts\"")!.lowerBound < html.range(of: "id=\"latency\"")!.lowerBound)
    }

    @Test func summaryHasItsStableKeys() throws {
        let run = try Support.run("failed-shrunk")
        let data = try RunSummary(run: run, series: ReportFiles.series(for: run)).json()
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        for key in [
            "schemaVersion", "scenario", "seed", "verdict", "checkers", "thresholds", "counts", "latency", "replay",
        ] {
            #expect(object[key] != nil, "summary.json lacks \(key)")
        }
        #expect(object["verdict"] as? String == "invalid")
        let opAck = try #require((object["latency"] as? [String: Any])?["op_ack"] as? [String: Any])
        #expect(Set(opAck.keys) == ["count", "p50", "p90", "p99", "max", "unit"])
        #expect(opAck["unit"] as? String == "ticks")
        #expect((object["checkers"] as? [String: String])?["convergence"] == "invalid")
    }

    func html_(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
    }
}
