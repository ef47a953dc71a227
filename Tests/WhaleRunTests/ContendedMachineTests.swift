import Foundation
import Testing
@testable import WhaleRun
import WhaleSim
import WhalesimTesting

/// The other half of "latencies the generator can vouch for": a machine taken by another program.
/// The runner's own lag may stay within its bound while the server (here in this process) gets
/// the CPU late; a latency threshold breached then is `unknown`, naming the machine, and the run
/// exits 3, never 1. Another program: one busy loop per core, started by a shell that exits at once
/// (so it is not a process of this run).
@Suite(.serialized) struct ContendedMachineTests {
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/stat")))
    func aBreachWhileAnotherProgramHoldsTheCPUIsUnknownWithTheMachineNamed() async throws {
        let dir = try ExternalProcess.temporaryDirectory("contended-machine")
        defer { try? FileManager.default.removeItem(at: dir) }
        let hogs = try Self.startHogs(ProcessInfo.processInfo.activeProcessorCount, pidsIn: dir)
        defer { Self.stop(hogs) }
        let server = try await PlantedBugTests.server(database: dir.appendingPathComponent("a.sqlite").path, bug: nil)
        // A bound no server meets, so the threshold is breached whatever the machine does.
        let file = try PlantedBugTests.scenario(
            name: "contended-machine", seed: 9, server: server.baseURL, duration: "4s", in: dir,
            extra: """
                  lag-bound: 5s
                checkers: [convergence, intention, revisions, liveness]
                thresholds:
                  - op_ack.p50 < 0.001ms
                """)
        var options = LiveRunOptions(
            scenario: try BuiltinScenarios.load(file.path), scenarioRef: file.path, seed: 9,
            fixtures: RecorderTests.root.appendingPathComponent("Fixtures"), reportsRoot: dir.path)
        options.progress = .none
        let r = try await LiveRun(options: options) { _ in }.run()
        await server.stop()
        let machine = try #require(r.series.machine, "a live run on Linux records the machine")
        print("contended: exit \(r.exitCode) \(r.metricThresholds) busy \(machine.busy) foreign \(machine.foreign)")
        #expect(!r.results.contains { $0.verdict != .valid }, "\(PlantedBugTests.describe(r))")
        #expect(r.series.faultWindows.contains { $0.kind == "contended" }, "\(r.series.faultWindows)")
        let t = try #require(r.metricThresholds.first)
        #expect(!t.met)
        #expect(t.unknown?.contains("busy with other processes") == true, "\(t)")
        #expect(r.exitCode == 3, "\(r.metricThresholds)")
        #expect(r.notes.contains { $0.contains("the machine was busy with other processes") }, "\(r.notes)")
    }

    /// Starts `n` busy loops that do not belong to this process (their shell exits at once and
    /// they are adopted by init); returns their pids.
    static func startHogs(_ n: Int, pidsIn dir: URL) throws -> [Int32] {
        var pids: [Int32] = []
        for i in 0..<n {
            let pidFile = dir.appendingPathComponent("hog-\(i).pid").path
            // The loop ends by itself after 120 s should this test die before it kills them. Not
            // Foundation's Process: it would wait for the loop, which keeps its exit pipe open.
            let script =
                "sh -c 'echo $$ > \(pidFile); end=$(( $(date +%s) + 120 )); while [ $(date +%s) -lt $end ]; do i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; done' </dev/null >/dev/null 2>&1 & sleep 0.2; exit 0;"
            #expect(LiveRun.runRestartCommand(script, phase: "") == nil)
            if let text = try? String(contentsOfFile: pidFile, encoding: .utf8),
                let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
            {
                pids.append(pid)
            }
        }
        #expect(pids.count == n, "started \(pids.count) of \(n) busy loops")
        return pids
    }

    static func stop(_ pids: [Int32]) {
        for pid in pids { kill(pid, SIGKILL) }
    }
}
