import Foundation
import Testing
@testable import WhaleReports

/// Records written before schema 2 (no timeUnit, startedAt, wallSeconds, documents or
/// shrunk.history) still render: ticks are assumed, documents are inferred from the history,
/// and a failure's timeline falls back to the run's own history.
@Suite struct SchemaOneRecordTests {
    @Test func aSchemaOneRecordRenders() throws {
        let dir = try Support.copyOfRun("failed-shrunk")
        defer { try? FileManager.default.removeItem(at: dir.deletingLastPathComponent()) }
        let file = dir.appendingPathComponent("run.json")
        var object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        for key in ["timeUnit", "startedAt", "wallSeconds", "documents"] { object[key] = nil }
        object["schemaVersion"] = 1
        var shrunk = try #require(object["shrunk"] as? [String: Any])
        shrunk["history"] = nil
        object["shrunk"] = shrunk
        try JSONSerialization.data(withJSONObject: object).write(to: file)

        let run = try RunDirectory.load(dir.path)
        #expect(run.record.unit == "ticks" && run.record.documents == nil && run.shrunkHistory == nil)
        let series = ReportFiles.series(for: run)
        #expect(series.latency["op_remote_apply"]?.overall.count ?? 0 > 0)
        let html = ReportHTML(run: run, series: series).render()
        #expect(html.contains("<h2>History per client</h2>"))
        #expect(html.contains("<tr class=\"hit\">"))
        #expect(html.contains("time (ticks)"))
        #expect(html.contains("<span class=\"badge invalid\">1/2</span>"))  // note-01: c03 diverged
    }
}
