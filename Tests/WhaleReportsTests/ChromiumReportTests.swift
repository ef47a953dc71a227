import Foundation
import Testing
import WhaleReports
import WhalesimTesting

/// A failed run's report.html opened in headless Chromium (Debian's `chromium`, installed by
/// scripts/setup --tests; skipped, saying so, where no real browser can be had, as on Ubuntu
/// whose `chromium-browser` is a snap stub) through Tests/External/report_in_chromium.py, run by
/// the test environment's Python (``ExternalProcess/python3()``): no failed request, no console
/// error, nothing fetched, dark mode applies, and the charts in the screenshot have content.
/// The screenshots are kept in `.build/test-artifacts/` for a human to look at.
@Suite struct ChromiumReportTests {
    static let chromium = ExternalProcess.chromium()
    static let python = ExternalProcess.python3()

    @Test(
        .enabled(
            if: chromium != nil,
            "no Chromium here (Debian: scripts/setup --tests installs chromium; Ubuntu has no deb of it): the browser check is skipped"
        ),
        .enabled(if: python != nil, "no python3 for the DevTools driver: \(ExternalProcess.pythonHint)"),
        .timeLimit(.minutes(2)))
    func theReportOpensCleanlyWithChartsThatHaveContent() throws {
        let dir = try Support.copyOfRun("failed-shrunk")
        defer { try? FileManager.default.removeItem(at: dir.deletingLastPathComponent()) }
        try ReportFiles.write(try RunDirectory.load(dir.path))
        let artifacts = Support.packageRoot.appendingPathComponent(".build/test-artifacts")
        let script = Support.packageRoot.appendingPathComponent("Tests/External/report_in_chromium.py").path
        let out = try Support.execute(
            Self.python!,
            [
                script, dir.appendingPathComponent("report.html").path, artifacts.path, "--timeout", "45", "--browser",
                Self.chromium!,
            ], timeout: 75)
        #expect(!out.timedOut, "chromium did not finish within 75 s")
        #expect(out.status == 0, "\(out.stdout)\(out.stderr)")
        let result = try #require(
            try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any],
            "\(out.stdout)\(out.stderr)")
        #expect((result["problems"] as? [String]) == [])
        let charts = try #require(result["charts"] as? [[String: Any]])
        #expect(charts.count >= 4)
        #expect(charts.contains { ($0["faults"] as? Int ?? 0) > 0 }, "a chart shades fault windows")
        let light = artifacts.appendingPathComponent("report-light.png")
        let size = (try FileManager.default.attributesOfItem(atPath: light.path)[.size] as? Int) ?? 0
        #expect(size > 50_000, "the light screenshot is \(size) bytes")
    }
}
