import Foundation
import Testing
import WhaleTelemetry

/// The endpoint over real HTTP, with curl as the client: /metrics in both formats, /health, the
/// page, /events delivering snapshots and the final event; taken and malformed addresses refused
/// before anything serves.
@Suite(.serialized) struct TelemetryServerHTTPTests {
    static var fast: TelemetryServer.Configuration {
        var configuration = TelemetryServer.Configuration()
        configuration.interval = .milliseconds(200)
        return configuration
    }

    @Test(.enabled(if: Support.curl != nil, "\(Support.curlHint)"), .timeLimit(.minutes(1)))
    func metricsHealthAndNegotiation() async throws {
        let run = Support.MovingRun()
        run.tick()
        let server = try await TelemetryServer.start(listen: "127.0.0.1:0", configuration: Self.fast) { run.snapshot() }
        defer { Task { await server.stop() } }
        #expect(server.port > 0)
        #expect(server.url == "http://127.0.0.1:\(server.port)/")
        #expect(server.listeningNote.contains("loopback only"))

        let text = try await Support.curl(["-D", "-", server.url + "metrics"])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("Content-Type: text/plain; version=0.0.4"))
        #expect(
            text.stdout.contains(#"whalesim_acks_total{scenario="soak",seed="7",run_id="test-run",shard="0/1"} 100"#))
        #expect(
            text.stdout.contains(
                #"whalesim_op_ack_seconds_bucket{scenario="soak",seed="7",run_id="test-run",shard="0/1",le="+Inf"} 100"#
            ))
        #expect(text.stdout.contains("whalesim_telemetry_dropped_events_total"))
        #expect(!text.stdout.contains("# EOF"))

        let open = try await Support.curl([
            "-D", "-", "-H", "Accept: application/openmetrics-text; version=1.0.0", server.url + "metrics",
        ])
        #expect(open.stdout.contains("Content-Type: application/openmetrics-text; version=1.0.0"))
        #expect(open.stdout.contains("# TYPE whalesim_acks counter"))
        #expect(open.stdout.contains("# UNIT whalesim_op_ack_seconds seconds"))
        #expect(open.stdout.hasSuffix("# EOF\n"))

        let health = try await Support.curl(["-w", " %{http_code}", server.url + "health"])
        #expect(health.stdout == "{\"status\":\"ok\",\"phase\":\"running\"}\n 200")

        let page = try await Support.curl([server.url])
        #expect(page.stdout.hasPrefix("<!DOCTYPE html>"))
        #expect(page.stdout.contains("new EventSource('events')"))
        // The only absolute URL on the page is SVG's namespace name, which is never fetched.
        let urls = page.stdout.replacingOccurrences(of: "'http://www.w3.org/2000/svg'", with: "")
        #expect(
            !urls.contains("http://") && !urls.contains("https://") && !urls.contains("src="),
            "the page fetches nothing but /events")
    }

    @Test(.enabled(if: Support.curl != nil, "\(Support.curlHint)"), .timeLimit(.minutes(1)))
    func eventsDeliverSnapshotsAndTheFinalEvent() async throws {
        let run = Support.MovingRun()
        let ticker = Task {
            while !Task.isCancelled {
                run.tick()
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
        defer { ticker.cancel() }
        let server = try await TelemetryServer.start(listen: ":0", configuration: Self.fast) { run.snapshot() }
        defer { Task { await server.stop() } }
        // 3 s: ample for 4 frames at 200 ms, also beside a Chromium starting up in a parallel suite.
        let stream = try await Support.curl(["-N", "--max-time", "3", server.url + "events"])
        // curl ends by its --max-time (exit 28): the stream stays open.
        #expect(stream.status == 28, "\(stream.stderr)")
        // The snapshots (a page that joins gets the points so far first, as `event: history`).
        let data = stream.stdout.components(separatedBy: "\n\n").filter { !$0.hasPrefix("event: history") }
            .flatMap { $0.split(separator: "\n") }.filter { $0.hasPrefix("data: ") }
        #expect(data.count >= 4, "\(stream.stdout.prefix(500))")
        let first = try #require(data.first)
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(first.dropFirst(6).utf8)) as? [String: Any])
        let status = try #require(object["status"] as? [String: Any])
        #expect(status["phase"] as? String == "running")
        #expect((object["run"] as? [String: String])?["run_id"] == "test-run")
        let metrics = try #require(object["metrics"] as? [String: Any])
        #expect(metrics["whalesim_acks_total"] != nil && metrics["whalesim_op_ack_seconds"] != nil)

        var final = run.snapshot(phase: "finished")
        final.status.verdict = "pass"
        final.status.reportURL = "file:///tmp/Reports/soak/latest/report.html"
        server.finish(final)
        let late = try await Support.curl(["-N", "--max-time", "1", server.url + "events"])
        #expect(late.stdout.contains("event: final\ndata: {"), "a client that comes after the end gets the verdict")
        #expect(late.stdout.contains(#""verdict":"pass""#))
        let health = try await Support.curl([server.url + "health"])
        #expect(health.stdout.contains("finished"))
    }

    @Test(.timeLimit(.minutes(1)))
    func aTakenPortIsRefusedBeforeAnythingServes() async throws {
        let first = try await TelemetryServer.start(listen: "127.0.0.1:0")
        defer { Task { await first.stop() } }
        let started = ContinuousClock.now
        await #expect(throws: TelemetryListenError.addressInUse(ListenAddress(host: "127.0.0.1", port: first.port))) {
            _ = try await TelemetryServer.start(listen: "127.0.0.1:\(first.port)")
        }
        #expect(ContinuousClock.now - started < .seconds(5))
        await #expect(throws: TelemetryListenError.self) {
            _ = try await TelemetryServer.start(listen: "localhost:http")
        }
        // An address not on this machine (TEST-NET-3): refused by the system, with its reason.
        do {
            let server = try await TelemetryServer.start(listen: "203.0.113.7:0")
            await server.stop()
            Issue.record("listened on an address this machine does not have")
        } catch {
            guard case .cannotListen(let address, let reason) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(address.host == "203.0.113.7")
            #expect(!reason.isEmpty)
            #expect(error.exitCode == 64)
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func stopEndsTheStreamsAndFreesThePort() async throws {
        let server = try await TelemetryServer.start(listen: "127.0.0.1:0")
        let port = server.port
        await server.stop()
        await server.stop()
        let again = try await TelemetryServer.start(listen: "127.0.0.1:\(port)")
        await again.stop()
    }
}
