import Foundation
import Testing
import WhaleTelemetry
import WhalesimTesting

/// The dashboard in headless Chromium (Debian's `chromium`; skipped, saying so, where there is
/// none) while events flow, through Tests/External/dashboard_in_chromium.py: two reads a few
/// seconds apart show the figures moving, the charts have lines and a shaded fault window, the
/// page fetches nothing but its events, and after the final event it shows the verdict and
/// links the report. Screenshots are kept in `.build/test-artifacts/` for a person to look at.
@Suite struct DashboardChromiumTests {
    static let chromium = ExternalProcess.chromium()
    static let python = ExternalProcess.python3()

    @Test(
        .enabled(
            if: chromium != nil,
            "no Chromium here (Debian: scripts/setup --tests installs chromium): the dashboard check is skipped"),
        .enabled(if: python != nil, "no python3 for the DevTools driver: \(ExternalProcess.pythonHint)"),
        .timeLimit(.minutes(2)))
    func theDashboardMovesWhileTheRunGoesAndShowsTheVerdictAtTheEnd() async throws {
        let run = Support.MovingRun()
        let ticker = Task {
            while !Task.isCancelled {
                run.tick()
                try? await Task.sleep(for: .milliseconds(250))
            }
        }
        defer { ticker.cancel() }
        var configuration = TelemetryServer.Configuration()
        configuration.interval = .milliseconds(500)
        let server = try await TelemetryServer.start(listen: "127.0.0.1:0", configuration: configuration) {
            run.snapshot()
        }
        defer { Task { await server.stop() } }
        let artifacts = ExternalProcess.packageRoot.appendingPathComponent(".build/test-artifacts")
        try? FileManager.default.removeItem(at: artifacts.appendingPathComponent("reads-done"))
        let script = ExternalProcess.packageRoot.appendingPathComponent("Tests/External/dashboard_in_chromium.py").path
        let marker = artifacts.appendingPathComponent("reads-done").path
        let out = try await ExternalProcess.run(
            Self.python!, [script, server.url, artifacts.path, "--browser", Self.chromium!],
            timeout: .seconds(70)
        ) {
            // When the script has read the page twice, the run ends: the final event with the verdict.
            while !FileManager.default.fileExists(atPath: marker), !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(100))
            }
            var final = run.snapshot(phase: "finished")
            final.status.verdict = "fail"
            final.status.verdictNote = "op_ack.p99 < 50ms: BREACHED"
            final.status.reportURL = "file:///tmp/Reports/soak/latest/report.html"
            server.finish(final)
        }
        #expect(out.status == 0, "\(out.stdout)\(out.stderr)")
        let result = try #require(
            try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any],
            "\(out.stdout)\(out.stderr)")
        #expect((result["problems"] as? [String]) == [])
        let reads = try #require(result["reads"] as? [[String: Any]])
        try #require(reads.count == 3)
        let (first, second, final) = (reads[0], reads[1], reads[2])
        #expect(first["phase"] as? String == "running")
        #expect(first["clients"] as? String != "–")
        for figure in ["elapsed", "acks", "frames"] {
            #expect(
                first[figure] as? String != second[figure] as? String, "\(figure) did not move: \(first) → \(second)")
        }
        #expect(second["ops-rate"] as? String != "–")
        #expect((second["p99"] as? String)?.contains("ms") == true, "p99: \(second["p99"] ?? "")")
        #expect((second["lines"] as? Int ?? 0) >= 3, "p50, p95 and p99 lines")
        #expect((second["faults"] as? Int ?? 0) >= 1, "the fault window is shaded")
        #expect((second["checkers"] as? [String])?.contains { $0.hasPrefix("convergencevalid") } == true)
        #expect((second["errors"] as? [String])?.contains { $0.hasPrefix("4003") } == true)
        #expect(first["verdictShown"] as? Bool == false)
        #expect(final["verdictShown"] as? Bool == true)
        #expect((final["verdict"] as? String)?.contains("FAIL") == true)
        #expect((final["verdict"] as? String)?.contains("BREACHED") == true)
        #expect(final["reportLink"] as? String == "file:///tmp/Reports/soak/latest/report.html")
        #expect(final["phase"] as? String == "finished")
    }
}
