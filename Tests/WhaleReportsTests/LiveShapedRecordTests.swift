import Foundation
import Testing
@testable import WhaleReports

/// A record shaped like the live runner's (schema 2 with `series` in ms and a `salesforce`
/// summary) round-trips through run.json and renders every chart, with no derivation from
/// the history.
@Suite struct LiveShapedRecordTests {
    static func liveRun() throws -> URL {
        var record = ReportBoundsTests.record(verdict: "valid")
        record.timeUnit = "ms"
        let starts = [0, 1000, 2000, 3000]
        func latency(_ base: Double) -> LatencySeries {
            LatencySeries(
                p50: starts.map { Double($0) / 1000 + base }, p90: starts.map { Double($0) / 500 + base * 2 },
                p99: [base * 3, nil, base * 4, base * 5], max: starts.map { _ in base * 6 },
                overall: LatencyFigures(count: 400, p50: base, p90: base * 2, p99: base * 4, max: base * 6))
        }
        record.series = RunSeries(
            unit: "ms", bucketWidth: 1000, bucketStarts: starts,
            latency: [
                "op_ack": latency(4), "op_remote_apply": latency(7), "graphql": latency(12), "soql": latency(30),
            ],
            counters: ["ops_acked": [10, 40, 38, 12], "ops_invoked": [11, 40, 39, 12]], connected: [50, 200, 180, 200],
            errors: ["error:rateLimited": [0, 2, 5, 0]],
            faultWindows: [FaultWindow(kind: "server-restart", label: "server killed", start: 1500, end: 2300)])
        record.salesforce = SalesforceSummary(
            requests: 120, errors: 3, unit: "ms",
            endpoints: [
                .init(endpoint: "GET /services/data/v59.0/query", requests: 100, errors: 3, p50: 12.5, p99: 80),
                .init(endpoint: "POST /services/oauth2/token", requests: 20, errors: 0, p50: 5, p99: 9),
            ])
        let dir = try Support.temporaryDirectory()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try encoder.encode(record).write(to: dir.appendingPathComponent("run.json"))
        try Data().write(to: dir.appendingPathComponent("history.jsonl"))
        return dir
    }

    @Test func theRunnersSeriesAndSalesforceSummaryRender() throws {
        let dir = try Self.liveRun()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try RunDirectory.load(dir.path)
        #expect(run.record.series?.latency.count == 4)
        try ReportFiles.write(run)
        let html = try String(contentsOf: dir.appendingPathComponent("report.html"), encoding: .utf8)
        // 4 latencies, ops, clients, errors.
        #expect(html.components(separatedBy: "<svg class=\"chart\"").count - 1 == 7)
        #expect(!html.contains("no GraphQL samples") && !html.contains("no SOQL samples"))
        #expect(html.contains("time (ms)") && html.contains("400 samples · p50 12 · p90 24 · p99 48 · max 72 ms"))
        #expect(
            html.contains(
                "<code>GET /services/data/v59.0/query</code></td><td class=\"num\">100</td><td class=\"num\">3</td><td class=\"num\">12.5</td>"
            ))
        #expect(html.contains("120 requests, 3 errors"))
        #expect(html.contains("error:rateLimited"))
        #expect(html.contains("<rect class=\"fault server-restart\""))
        let summary = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("summary.json")))
                as? [String: Any])
        let soql = try #require((summary["latency"] as? [String: Any])?["soql"] as? [String: Any])
        #expect(soql["unit"] as? String == "ms" && soql["p99"] as? Double == 120)
    }
}
