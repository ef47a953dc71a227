import Foundation
import Testing
import WhaleTelemetry
import WhalesimTesting
import Yams

/// The documents that go with the endpoint: docs/metrics.md names every family of the catalog
/// (and the catalog every name the reference server registers), the Prometheus scrape configs
/// pass `promtool check config`, the Grafana dashboard parses and queries only catalog metrics,
/// and the OpenTelemetry Collector config reads the endpoint with its Prometheus receiver.
@Suite struct DocsConfigTests {
    static let root = ExternalProcess.packageRoot
    static let promtool = ExternalProcess.which("promtool")

    static func text(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    @Test func theMetricsTableListsTheWholeCatalog() throws {
        let table = try Self.text("docs/metrics.md")
        for descriptor in MetricCatalog.all {
            let row = table.split(separator: "\n").first {
                $0.hasPrefix("| `\(descriptor.exposedName)") && $0.contains(descriptor.exporter.rawValue)
            }
            #expect(row != nil, "docs/metrics.md has no \(descriptor.exporter) row for \(descriptor.exposedName)")
            #expect(
                row?.contains("| \(descriptor.kind.rawValue) |") == true,
                "\(descriptor.exposedName) is a \(descriptor.kind)")
        }
    }

    @Test func theServersNamesAreInTheCatalog() throws {
        let source = try Self.text("Sources/WhaleServer/Metrics/ServerMetrics.swift")
        // Every family name the server renders is a literal there (docs/decisions/0058-reference-server-on-plain-nio.md).
        let names = Set(source.matches(of: /"(whalesim_[a-z_]+)/).map { String($0.1) }).sorted()
        #expect(names.count >= 7, "\(names)")
        let server = Set(MetricCatalog.server.map(\.exposedName))
        for name in names { #expect(server.contains(name), "the server registers \(name), which the catalog lacks") }
    }

    @Test(
        .enabled(
            if: promtool != nil,
            "no promtool here (Debian's prometheus package has it): the scrape configs are not checked"),
        .timeLimit(.minutes(1)))
    func thePrometheusConfigsPassPromtool() async throws {
        let dir = Self.root.appendingPathComponent("docs/prometheus")
        let configs = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter {
            $0.hasPrefix("prometheus-")
        }.sorted()
        #expect(configs == ["prometheus-kubernetes-indexed-job.yml", "prometheus-run.yml", "prometheus-serve.yml"])
        for config in configs {
            var path = dir.appendingPathComponent(config).path
            var out = try await ExternalProcess.run(Self.promtool!, ["check", "config", path], timeout: .seconds(30))
            if out.status != 0, "\(out.stdout)\(out.stderr)".contains("kubernetes_sd_configs not found") {
                // Debian builds Prometheus without Kubernetes discovery: check the rest of the job
                // (relabelling, honor_labels) with the discovery block swapped for a static target.
                let text = try String(contentsOfFile: path, encoding: .utf8)
                let start = try #require(text.range(of: "    kubernetes_sd_configs:"))
                let end = try #require(text.range(of: "    relabel_configs:"))
                let swapped =
                    text[..<start.lowerBound] + "    static_configs:\n      - targets: ['shard-0:9464']\n"
                    + text[end.lowerBound...]
                let copy = try ExternalProcess.temporaryDirectory("promtool").appendingPathComponent(config)
                try String(swapped).write(to: copy, atomically: true, encoding: .utf8)
                path = copy.path
                out = try await ExternalProcess.run(Self.promtool!, ["check", "config", path], timeout: .seconds(30))
            }
            #expect(out.status == 0, "\(config): \(out.stdout)\(out.stderr)")
        }
        let kubernetes = try Self.text("docs/prometheus/prometheus-kubernetes-indexed-job.yml")
        #expect(kubernetes.contains("kubernetes_sd_configs") && kubernetes.contains("job-completion-index"))
    }

    @Test func theGrafanaDashboardParsesAndQueriesCatalogMetrics() throws {
        let data = try Data(contentsOf: Self.root.appendingPathComponent("docs/grafana/whalesim.json"))
        let dashboard = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let panels = try #require(dashboard["panels"] as? [[String: Any]])
        let expressions = panels.flatMap {
            ($0["targets"] as? [[String: Any]] ?? []).compactMap { $0["expr"] as? String }
        }
        #expect(expressions.count >= 10)
        let known = Set(
            MetricCatalog.all.flatMap { d in
                d.kind == .histogram ? [d.name + "_bucket", d.name + "_sum", d.name + "_count"] : [d.exposedName]
            })
        for expression in expressions {
            let names = expression.split { !($0.isLetter || $0.isNumber || $0 == "_") }.filter {
                $0.hasPrefix("whalesim_")
            }
            #expect(!names.isEmpty, "\(expression) reads no whalesim metric")
            for name in names { #expect(known.contains(String(name)), "\(expression): \(name) is not in the catalog") }
        }
        let titles = panels.compactMap { $0["title"] as? String }
        #expect(titles.contains { $0.hasPrefix("Run:") } && titles.contains { $0.hasPrefix("Server:") })
    }

    @Test func theCollectorReadsTheEndpointWithItsPrometheusReceiver() throws {
        let config = try #require(
            try Yams.load(yaml: Self.text("docs/prometheus/otel-collector.yml")) as? [String: Any])
        let receivers = try #require(config["receivers"] as? [String: Any])
        let prometheus = try #require(receivers["prometheus"] as? [String: Any])
        let scrape = try #require((prometheus["config"] as? [String: Any])?["scrape_configs"] as? [[String: Any]])
        #expect(scrape.contains { ($0["job_name"] as? String) == "whalesim-run" })
        let pipelines = try #require((config["service"] as? [String: Any])?["pipelines"] as? [String: Any])
        let metrics = try #require(pipelines["metrics"] as? [String: Any])
        #expect((metrics["receivers"] as? [String]) == ["prometheus"])
    }
}
