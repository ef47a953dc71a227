import Foundation
import Testing
@testable import WhaleRun
import WhaleServer
import WhaleSim
import WhalesimTesting

/// Fixing false alarms must not blunt the checkers: a live server planted with a bug that loses,
/// skips or misorders ops (`serve --plant`) is still caught, `invalid` (exit 2), by the checker
/// whose promise it breaks, with the evidence named. The same short run on the same server with
/// nothing planted is valid (the control), so what fails is the bug, not the run.
@Suite(.serialized) struct PlantedBugTests {
    /// A short live run on an in-process server with `bug` planted. With `restartAtMs`, the
    /// server is stopped that far into the load and started again on the same port and file.
    func run(_ bug: PlantedBug?, restartAtMs: Int? = nil, seed: Int = 11) async throws -> LiveRunResult {
        let dir = try ExternalProcess.temporaryDirectory("planted-\(bug?.rawValue ?? "none")")
        defer { try? FileManager.default.removeItem(at: dir) }
        let database = dir.appendingPathComponent("a.sqlite").path
        var server = try await Self.server(database: database, bug: bug)
        let port = server.port
        let file = try Self.scenario(
            name: "planted-\(bug?.rawValue ?? "none")", seed: seed, server: server.baseURL, duration: "5s", in: dir)
        var options = LiveRunOptions(
            scenario: try BuiltinScenarios.load(file.path), scenarioRef: file.path, seed: UInt64(seed),
            fixtures: RecorderTests.root.appendingPathComponent("Fixtures"), reportsRoot: dir.path)
        options.progress = .none
        let live = Task { try await LiveRun(options: options) { _ in }.run() }
        if let restartAtMs {
            // The ramp and sign-in take about a second before the load starts.
            try await Task.sleep(for: .milliseconds(1_000 + restartAtMs))
            await server.stop()
            try await Task.sleep(for: .milliseconds(100))
            server = try await Self.server(port: port, database: database, bug: bug)
        }
        let result = try await live.value
        await server.stop()
        print(
            "planted \(bug?.rawValue ?? "none"): exit \(result.exitCode), errors \(result.errors)\n\(Self.describe(result))\n\(result.notes.joined(separator: "\n"))"
        )
        return result
    }

    /// The short live scenario these tests run (6 clients typing in 2 notes), written to `dir`;
    /// `extra` replaces the checkers line (and may add to `live:` before it).
    static func scenario(
        name: String, seed: Int, server: String, duration: String, in dir: URL,
        extra: String = "checkers: [convergence, intention, revisions, liveness]"
    ) throws -> URL {
        let yaml = """
            name: \(name)
            mode: live
            seed: \(seed)
            clients: {count: 6, documents: 2, protocol: 2}
            text: {alphabet: ascii}
            mix: {typing-burst: 10, delete: 2}
            live:
              server: \(server)
              duration: \(duration)
              load: {profile: constant}
              think-time: {distribution: uniform, min: 40, max: 120}
              keystroke: {distribution: uniform, min: 15, max: 30}
              import: {pages: 0}
              quiescence: 15s
            \(extra)
            """
        let file = dir.appendingPathComponent("\(name).yml")
        try yaml.write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    static func server(port: Int = 0, database: String, bug: PlantedBug?) async throws -> ReferenceServer {
        var c = ServerConfiguration()
        c.port = port
        c.database = database
        c.fixtures = RecorderTests.seed
        c.jwtSecret = Data("whalesim-planted-test-secret-0123".utf8)
        c.bcryptCost = 4
        c.logLevel = .critical
        c.closeTimeout = .milliseconds(200)
        c.plantedBug = bug
        return try await ReferenceServer.start(c)
    }

    static func describe(_ r: LiveRunResult) -> String {
        r.results.map { "\($0.checker): \($0.verdict) \($0.evidence.prefix(3))" }.joined(separator: "\n")
    }

    static func evidence(_ r: LiveRunResult, _ checker: String) -> [String] {
        r.results.first { $0.checker.rawValue == checker }?.evidence ?? []
    }

    static func verdict(_ r: LiveRunResult, _ checker: String) -> Verdict? {
        r.results.first { $0.checker.rawValue == checker }?.verdict
    }

    @Test func theSameRunWithNothingPlantedIsValid() async throws {
        let r = try await run(nil, restartAtMs: 2_500)
        #expect(r.exitCode == 0, "\(Self.describe(r))")
        #expect(!r.results.contains { $0.verdict != .valid }, "\(Self.describe(r))")
    }

    @Test func aServerThatLosesAcknowledgedOpsOnRestartIsCaught() async throws {
        let r = try await run(.loseAckedOps, restartAtMs: 2_500)
        #expect(r.exitCode == 2, "\(Self.describe(r))")
        #expect(Self.verdict(r, "intention") == .invalid, "\(Self.describe(r))")
        #expect(r.results.contains { $0.evidence.contains { $0.contains("lost") } }, "\(Self.describe(r))")
    }

    @Test func aServerThatSkipsABroadcastIsCaught() async throws {
        let r = try await run(.skipBroadcast)
        #expect(r.exitCode == 2, "\(Self.describe(r))")
        // The member that missed an op finds its copy no longer fits the server's next op (or
        // the server refuses its own): caught while it happens, though it resyncs afterwards.
        #expect(Self.verdict(r, "convergence") == .invalid, "\(Self.describe(r))")
        #expect(
            Self.evidence(r, "convergence").contains {
                $0.contains("diverged from the server") && $0.contains("during the run")
            }, "\(Self.describe(r))")
    }

    @Test func aServerThatMisordersBroadcastsIsCaught() async throws {
        let r = try await run(.misorderBroadcast)
        #expect(r.exitCode == 2, "\(Self.describe(r))")
        #expect(Self.verdict(r, "convergence") == .invalid, "\(Self.describe(r))")
        #expect(
            Self.evidence(r, "convergence").contains {
                $0.contains("diverged from the server") && $0.contains("during the run")
            }, "\(Self.describe(r))")
    }
}

/// A generator starved of CPU reports its own delays as the server's unless it knows it was
/// starved: with every runner event loop blocked 120 ms out of every 250 (the `starveRunnerMs`
/// hook, live sockets, a healthy server), the lag probe sees it, the run marks saturated windows,
/// the latency thresholds end `unknown` with the reason, the checkers stay valid, and the exit is
/// 3, never 1 or 2.
@Suite(.serialized) struct SaturatedRunnerTests {
    @Test func aStarvedRunnerEndsUnknownWithSaturationNamed() async throws {
        let dir = try ExternalProcess.temporaryDirectory("starved-runner")
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try await PlantedBugTests.server(database: dir.appendingPathComponent("a.sqlite").path, bug: nil)
        let file = try PlantedBugTests.scenario(
            name: "starved-runner", seed: 5, server: server.baseURL, duration: "4s", in: dir,
            extra: """
                  lag-bound: 50ms
                checkers: [convergence, intention, revisions, liveness]
                thresholds:
                  - op_ack.p99 < 2s
                  - op_ack.p99{steady} < 2s
                """)
        var options = LiveRunOptions(
            scenario: try BuiltinScenarios.load(file.path), scenarioRef: file.path, seed: 5,
            fixtures: RecorderTests.root.appendingPathComponent("Fixtures"), reportsRoot: dir.path)
        options.progress = .none
        options.starveRunnerMs = 120
        let r = try await LiveRun(options: options) { _ in }.run()
        await server.stop()
        #expect(r.exitCode == 3, "\(PlantedBugTests.describe(r)) \(r.metricThresholds)")
        #expect(!r.results.contains { $0.verdict != .valid }, "\(PlantedBugTests.describe(r))")
        #expect(r.metricThresholds.count == 2)
        for t in r.metricThresholds {
            #expect(t.unknown?.contains("the load generator was saturated") == true, "\(t)")
            #expect(!t.met)
        }
        #expect(r.series.faultWindows.contains { $0.kind == "saturated" }, "\(r.series.faultWindows)")
    }
}
