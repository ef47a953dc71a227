import Testing
import WhaleProtocol
@testable import WhaleSim

@Suite struct DeterminismTests {
    @Test(arguments: ["convergence-smoke", "flaky-network", "server-restart", "sales-team"])
    func sameSeedSameHistoryHash(_ name: String) throws {
        let scenario = try BuiltinScenarios.load(name)
        let a = Simulation.run(scenario, seed: 42), b = Simulation.run(scenario, seed: 42)
        #expect(a.history.hash == b.history.hash)
        #expect(a.history.entries == b.history.entries)
        #expect(a.counts == b.counts)
        #expect(a.history.hash.count == 16)
    }

    @Test func differentSeedsOrFaultsGiveDifferentHistories() throws {
        let scenario = try BuiltinScenarios.load("convergence-smoke")
        let hashes = Set((1...10).map { Simulation.run(scenario, seed: UInt64($0)).history.hash })
        #expect(hashes.count == 10)
        let faulty = ScenarioOverrides(faults: [.clientTiePriority]).apply(to: scenario)
        #expect(Simulation.run(faulty, seed: 1).history.hash != Simulation.run(scenario, seed: 1).history.hash)
    }

    @Test func fewerOpsReplayAPrefixOfTheSameRun() throws {
        // Per-client random streams: cutting the op budget keeps what happened before the cut.
        let scenario = try BuiltinScenarios.load("convergence-smoke")
        let long = Simulation.run(scenario, seed: 5)
        let short = Simulation.run(ScenarioOverrides(ops: 40).apply(to: scenario), seed: 5)
        let edits = { (h: History) in
            h.entries.compactMap { e -> String? in
                if case .edit(let c, let p, let d, let i) = e.event {
                    return "\(e.time) \(c) \(p) \(d) \(i)"
                } else {
                    return nil
                }
            }
        }
        #expect(Array(edits(long.history).prefix(40)) == Array(edits(short.history).prefix(40)))
    }
}
