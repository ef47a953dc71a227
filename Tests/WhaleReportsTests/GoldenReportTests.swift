import Foundation
import Testing
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
        if let problem = GoldenFile.compare(GoldenFile.normalize(html, Self.strip), with: golden) { Issue.record(Comment(rawValue: problem)) }
    }

    @Test(arguments: runs) func junitMatchesItsGoldenFile(name: String) throws {
        let run = try Support.run(name)
        let golden = Support.fixtures.appendingPathComponent("golden/\(name).junit.xml")
        if let problem = GoldenFile.compare(GoldenFile.normalize(JUnitXML(run: run).render(), Self.strip), with: golden) { Issue.record(Comment(rawValue: problem)) }
    }

    @Test(arguments: runs) func summaryMatchesItsGoldenFile(name: String) throws {
        let run = try Support.run(name)
        let json = String(decoding: try RunSummary(run: run, series: ReportFiles.series(for: run)).json(), as: UTF8.self)
        let golden = Support.fixtures.appendingPathComponent("golden/\(name).summary.json")
        if let problem = GoldenFile.compare(json, with: golden) { Issue.record(Comment(rawValue: problem)) }
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
        for key in ["schemaVersion", "scenario", "seed", "verdict", "checkers", "thresholds", "counts", "latency", "replay"] {
            #expect(object[key] != nil, "summary.json lacks \(key)")
        }
        #expect(object["verdict"] as? String == "invalid")
        let opAck = try #require((object["latency"] as? [String: Any])?["op_ack"] as? [String: Any])
        #expect(Set(opAck.keys) == ["count", "p50", "p90", "p99", "max", "unit"])
        #expect(opAck["unit"] as? String == "ticks")
        #expect((object["checkers"] as? [String: String])?["convergence"] == "invalid")
    }

    func html_(_ s: String) -> String { s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;") }
}
