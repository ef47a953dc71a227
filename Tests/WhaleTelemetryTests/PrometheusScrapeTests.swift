import Foundation
import Testing
import WhaleTelemetry
import WhalesimTesting

/// A real Prometheus (Debian's `prometheus`, installed by scripts/setup --tests) scrapes the
/// endpoint every second; its HTTP API then gives back the counter exactly and
/// `histogram_quantile(0.99, ...)` within the bucket that holds the record's true p99. Prometheus
/// asks for OpenMetrics first, so this also proves that format parses; `promtool check metrics`
/// lints the text format.
@Suite(.serialized) struct PrometheusScrapeTests {
    static let prometheus = ExternalProcess.which("prometheus")
    static let promtool = ExternalProcess.which("promtool")
    static let hint =
        "no prometheus here (Debian: scripts/setup --tests installs the prometheus package): the scrape test is skipped"

    /// 1,000 op→ack samples: 900 at 3 ms, 95 at 30 ms, 5 at 700 ms. The 990th is 30 ms: the true
    /// p99 lies in the bucket (25 ms, 50 ms].
    static func snapshot() -> TelemetrySnapshot {
        var histogram = TelemetryHistogram()
        histogram.add(0.003, count: 900)
        histogram.add(0.03, count: 95)
        histogram.add(0.7, count: 5)
        var snapshot = TelemetrySnapshot(run: RunLabels(scenario: "soak", seed: "7", runID: "prom-test", shard: "0/1"))
        snapshot.set(MetricCatalog.opAck, histogram: histogram)
        snapshot.set(MetricCatalog.acks, 12_345)
        snapshot.set(MetricCatalog.errors, labels: ["code": #"quote " and \ backslash"#], 2)
        return snapshot
    }

    @Test(
        .enabled(if: prometheus != nil, "\(hint)"), .enabled(if: Support.curl != nil, "\(Support.curlHint)"),
        .timeLimit(.minutes(1)))
    func prometheusScrapesAndAnswersTheRunsFigures() async throws {
        let server = try await TelemetryServer.start(listen: "127.0.0.1:0") { Self.snapshot() }
        defer { Task { await server.stop() } }
        let dir = try ExternalProcess.temporaryDirectory("prometheus")
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("prometheus.yml")
        try """
        global:
          scrape_interval: 1s
          evaluation_interval: 1s
        scrape_configs:
          - job_name: whalesim-run
            scrape_interval: 1s
            static_configs:
              - targets: ['127.0.0.1:\(server.port)']
        """.write(to: config, atomically: true, encoding: .utf8)
        let port = try Support.freePort()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.prometheus!)
        process.arguments = [
            "--config.file=\(config.path)", "--storage.tsdb.path=\(dir.appendingPathComponent("data").path)",
            "--web.listen-address=127.0.0.1:\(port)", "--log.level=warn",
        ]
        let log = dir.appendingPathComponent("prometheus.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let logHandle = try FileHandle(forWritingTo: log)
        process.standardOutput = logHandle
        process.standardError = logHandle
        try process.run()
        defer {
            process.terminate()
            process.waitUntilExit()
            try? logHandle.close()
        }
        let api = "http://127.0.0.1:\(port)/api/v1/query"
        func query(_ expression: String) async throws -> [[String: Any]] {
            let out = try await Support.curl(["-G", "--max-time", "5", api, "--data-urlencode", "query=\(expression)"])
            guard out.status == 0,
                let object = try? JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any],
                let data = object["data"] as? [String: Any], let result = data["result"] as? [[String: Any]]
            else { return [] }
            return result
        }
        func value(_ sample: [String: Any]?) -> Double? {
            (sample?["value"] as? [Any])?.last.flatMap { $0 as? String }.flatMap(Double.init)
        }

        var acks: Double?
        let deadline = ContinuousClock.now + .seconds(30)
        while acks == nil, ContinuousClock.now < deadline {
            acks = value(try await query("whalesim_acks_total").first)
            if acks == nil { try await Task.sleep(for: .milliseconds(250)) }
        }
        let logText = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        let targets = try await Support.curl(["--max-time", "5", "http://127.0.0.1:\(port)/api/v1/targets"])
        #expect(acks == 12_345, "prometheus log: \(logText.suffix(2000)) targets: \(targets.stdout.prefix(1500))")
        #expect(targets.stdout.contains(#""health":"up""#))

        let quantile = value(
            try await query("histogram_quantile(0.99, sum by (le) (whalesim_op_ack_seconds_bucket))").first)
        let p99 = try #require(quantile)
        #expect(
            p99 > 0.025 && p99 <= 0.05,
            "p99 \(p99) is not in the bucket (0.025, 0.05] that holds the record's p99 (0.03)")

        let labelled = try await query("whalesim_errors_total")
        let metric = labelled.first?["metric"] as? [String: String]
        #expect(metric?["code"] == #"quote " and \ backslash"#, "label values survive escaping: \(labelled)")
        #expect(metric?["run_id"] == "prom-test" && metric?["shard"] == "0/1" && metric?["scenario"] == "soak")
    }

    @Test(
        .enabled(if: promtool != nil, "\(hint)"), .enabled(if: Support.curl != nil, "\(Support.curlHint)"),
        .timeLimit(.minutes(1)))
    func promtoolLintsTheTextFormatClean() async throws {
        var snapshot = Self.snapshot()
        for descriptor in MetricCatalog.runner where snapshot.series(descriptor) == nil {
            if descriptor.kind == .histogram {
                snapshot.set(descriptor, histogram: TelemetryHistogram())
            } else if descriptor.labelNames.isEmpty {
                snapshot.set(descriptor, 0)
            } else {
                snapshot.set(descriptor, labels: TelemetryLabels(descriptor.labelNames.map { ($0, "x") }), 0)
            }
        }
        let dir = try ExternalProcess.temporaryDirectory("promtool")
        let file = dir.appendingPathComponent("metrics.txt")
        try ExpositionEncoder.encode(snapshot, as: .prometheusText).write(to: file, atomically: true, encoding: .utf8)
        let out = try await ExternalProcess.run(
            "/bin/sh", ["-c", "\"$0\" check metrics < \"$1\"", Self.promtool!, file.path],
            timeout: .seconds(30))
        #expect(out.status == 0, "promtool check metrics: \(out.stdout)\(out.stderr)")
        #expect(out.stdout.isEmpty && out.stderr.isEmpty, "promtool's lint: \(out.stdout)\(out.stderr)")
    }
}
