import Foundation
import Testing
@testable import WhaleReports

/// A big run's report stays under 5 MB, says what it cut, and escapes whatever the record holds.
@Suite struct ReportBoundsTests {
    static func record(
        verdict: String, scenario: String = "big", evidence: [String] = ["c07 diverged from the server on doc1: at 3"]
    ) -> RunRecordFile {
        RunRecordFile(
            schemaVersion: 2, whalesimVersion: "0.1.0", scenario: scenario, seed: 7, timeUnit: "ticks", startedAt: nil,
            wallSeconds: nil,
            options: ["clients": .int(200), "nemeses": .list(["disconnect every 50 for 20"])], verdict: verdict,
            verdicts: [.init(checker: "convergence", verdict: verdict, evidence: verdict == "valid" ? [] : evidence)],
            thresholds: [.init(threshold: "convergence == valid", met: verdict == "valid")], counts: ["edits": 1],
            historyHash: "0123456789abcdef", replayCommand: "whalesim simulate \(scenario) --seed 7", shrunk: nil,
            documents: [.init(name: "doc1", clients: (1...200).map { String(format: "c%03d", $0) })], series: nil,
            salesforce: nil)
    }

    /// 200 clients, 150,201 events with long pastes, disconnects every few ticks: a failed run.
    static func bigHistory() -> [HistoryLine] {
        var lines: [HistoryLine] = []
        let paste = String(repeating: "pipeline review ", count: 40)
        for i in 0..<30_000 {
            let c = String(format: "c%03d", i % 200 + 1), t = i * 3
            lines.append(
                HistoryLine(
                    t: t, type: "invoke",
                    fields: [
                        "client": .string(c), "opId": .string("\(c):\(i)"), "op": .string("[3,\"\(paste)\"]"),
                        "baseRevision": .int(i),
                    ]))
            lines.append(
                HistoryLine(
                    t: t + 1, type: "serverApply",
                    fields: [
                        "client": .string(c), "document": .string("doc1"), "opId": .string("\(c):\(i)"),
                        "op": .string("[3,\"\(paste)\"]"), "revision": .int(i + 1),
                    ]))
            lines.append(
                HistoryLine(
                    t: t + 2, type: "ack",
                    fields: ["client": .string(c), "opId": .string("\(c):\(i)"), "revision": .int(i + 1)]))
            lines.append(
                HistoryLine(t: t + 2, type: "disconnect", fields: ["client": .string(c), "cause": .string("nemesis")]))
            lines.append(HistoryLine(t: t + 2, type: "connect", fields: ["client": .string(c)]))
        }
        lines.append(
            HistoryLine(
                t: 90_000, type: "serverFinal",
                fields: [
                    "document": .string("doc1"), "text": .string("abc"), "revision": .int(30_000),
                    "historyCount": .int(30_000),
                ]))
        for k in 1...200 {
            lines.append(
                HistoryLine(
                    t: 90_000, type: "clientFinal",
                    fields: [
                        "client": .string(String(format: "c%03d", k)), "text": .string(k == 7 ? "acb" : "abc"),
                        "revision": .int(30_000), "pendingOps": .int(0), "connected": .bool(true),
                    ]))
        }
        return lines
    }

    @Test func aBigFailedRunStaysUnderFiveMegabytes() throws {
        let run = RunDirectory(
            path: "/nonexistent", record: Self.record(verdict: "invalid"), history: Self.bigHistory())
        let files = try ReportFiles.render(run)
        let html = try #require(files.first { $0.name == ReportFiles.html })
        #expect(html.data.count < 5_000_000, "report.html is \(html.data.count) bytes")
        let text = String(decoding: html.data, as: UTF8.self)
        #expect(text.contains("of 150201 shown (the timeline is capped at 2000 rows)"))
        #expect(text.contains("fault windows drawn"))
        #expect(text.contains("<th>who</th>"))  // 200 clients: one column, not 200
        // Only the diverged client gets a convergence row.
        #expect(
            text.contains(
                "<p>199 of 200 clients ended with their server's text and revision (the others are listed).</p>"))
        #expect(text.contains("<tr><td>c007</td><td>doc1</td>"))
        #expect(!text.contains("<tr><td>c008</td><td>doc1</td>"))
    }

    @Test func everythingFromTheRecordIsEscaped() throws {
        let evil = "<script>alert('x')</script> & \"q\""
        var record = Self.record(verdict: "invalid", scenario: "<b>evil</b>", evidence: [evil, "bell \u{07} char"])
        record.options["alphabet"] = .string(evil)
        let history = [
            HistoryLine(t: 0, type: "connect", fields: ["client": .string("<c1>")]),
            HistoryLine(t: 1, type: "note", fields: ["text": .string(evil)]),
            HistoryLine(
                t: 2, type: "clientFinal",
                fields: [
                    "client": .string("<c1>"), "text": .string(evil), "revision": .int(0), "pendingOps": .int(0),
                    "connected": .bool(true),
                ]),
            HistoryLine(
                t: 2, type: "serverFinal",
                fields: [
                    "document": .string("doc1"), "text": .string("x"), "revision": .int(0), "historyCount": .int(0),
                ]),
        ]
        let run = RunDirectory(path: "/nonexistent", record: record, history: history)
        let html = ReportHTML(run: run, series: ReportFiles.series(for: run)).render()
        #expect(!html.contains("<script>"))
        #expect(!html.contains("<b>evil</b>"))
        #expect(!html.contains("<c1>"))
        #expect(html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;"))
        let junit = JUnitXML(run: run).render()
        #expect(!junit.contains("<script>"))
        #expect(!junit.contains("\u{07}"))
        #expect(junit.contains("&lt;script&gt;alert(&apos;x&apos;)&lt;/script&gt; &amp; &quot;q&quot;"))
    }
}
