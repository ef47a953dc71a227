import Foundation
import Testing
@testable import WhaleTelemetry

/// A dashboard opened mid-run gets the run's points so far first (`event: history`), so its
/// charts start with the run, not when the page was opened; the points are those the page would
/// have drawn itself, and only the last ten minutes are kept.
@Suite struct LateDashboardTests {
    @Test(.enabled(if: Support.curl != nil, "\(Support.curlHint)"), .timeLimit(.minutes(1)))
    func aLateClientGetsThePointsSoFarFirst() async throws {
        let server = try await TelemetryServer.start(listen: "127.0.0.1:0")
        defer { Task { await server.stop() } }
        let run = Support.MovingRun()
        for _ in 1...5 {
            run.tick()
            server.publish(run.snapshot())
        }
        // 5 s: beside a Chromium starting up (another suite, in parallel) two cores can be busy for seconds.
        let stream = try await Support.curl(["-N", "-v", "--max-time", "5", server.url + "events"])
        #expect(stream.status == 28, "curl ends by its --max-time: \(stream.stderr)")
        let events = stream.stdout.components(separatedBy: "\n\n")
        let history = try #require(
            events.first { $0.hasPrefix("event: history\n") },
            "out: \(stream.stdout.prefix(300)) err: \(stream.stderr.prefix(300)) status \(stream.status)")
        let at = try #require(events.firstIndex(of: history))
        #expect(events[at + 1].hasPrefix("data: {"), "the latest frame follows the points")
        let json = String(history.dropFirst("event: history\ndata: ".count))
        let points = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        #expect(points.map { $0["t"] as? Double } == [1, 2, 3, 4, 5])
        // 100 ops a tick, a tick a second; the first point has no rate yet.
        #expect(points.map { $0["ops"] as? Double } == [nil, 100, 100, 100, 100])
        let ack = try #require(points.last?["ack"] as? [String: Double])
        // This second: 90 at 2 ms, 9 at 30 ms, 1 at 1.2 s: p50 within the 1-2.5 ms bucket, p99 within 25-50 ms.
        #expect((0.001...0.0025).contains(ack["p50"] ?? -1), "\(ack)")
        #expect((0.025...0.05).contains(ack["p99"] ?? -1), "\(ack)")
        #expect(points.allSatisfy { ($0["clients"] as? Double ?? 0) >= 40 })
    }

    @Test func theLogKeepsTheLastPointsAndNoStaleOnes() {
        var log = TrendLog(capacity: 3)
        #expect(log.sse == nil, "no points: no history event")
        let run = Support.MovingRun()
        for _ in 1...5 {
            run.tick()
            log.add(run.snapshot())
        }
        log.add(run.snapshot())  // the same second again (a scrape between ticks): no new point
        #expect(log.points.map(\.t) == [3, 4, 5])
    }

    @Test func estimatesFollowTheBucketsSinceTheLastPoint() {
        var before = TelemetryHistogram()
        before.add(0.2, count: 1000)
        var now = before
        now.add(0.003, count: 100)
        // Only what came since `before`: 100 at 3 ms, in the 2.5-5 ms bucket.
        let p50 = TrendPoint.estimate(now, since: before, 0.5)
        #expect(
            p50.map { (0.0025...0.005).contains($0) } == true,
            "\(String(describing: p50)) \(now.cumulativeCounts) \(before.cumulativeCounts)")
        #expect(TrendPoint.estimate(before, since: before, 0.5) == nil, "nothing new: no estimate")
    }
}
