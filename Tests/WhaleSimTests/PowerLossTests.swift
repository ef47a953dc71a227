import Testing
import WhaleProtocol
@testable import WhaleSim

/// The simulator's power loss: a crash that also loses what the storage had written but not made
/// durable. The reference server loses nothing acknowledged; `ack-before-durable` loses acknowledged
/// ops to a power loss but never to a plain server restart (kill -9 keeps what was written).
@Suite struct PowerLossTests {
    static func powerLossNotes(_ result: SimulationResult) -> [String] {
        result.history.entries.compactMap { if case .note(let t) = $0.event, t.hasPrefix("power loss:") { t } else { nil } }
    }

    @Test func theReferenceServerLosesNothingAcknowledgedInAPowerLoss() throws {
        let scenario = try BuiltinScenarios.load("power-loss")
        for seed: UInt64 in 1...5 {
            let result = Simulation.run(scenario, seed: seed)
            #expect(result.verdict == .valid, "seed \(seed): \(result.results.filter { $0.verdict != .valid })")
            let notes = Self.powerLossNotes(result)
            #expect(!notes.isEmpty, "seed \(seed): no power loss happened")
            // Every write is durable before its ack: there is never anything to lose.
            #expect(notes.allSatisfy { $0 == "power loss: 0 written entries not yet durable lost" }, "\(notes)")
            #expect(result.counts.serverRestarts == notes.count)
        }
    }

    @Test func ackBeforeDurableLosesAcknowledgedOpsToAPowerLoss() throws {
        let scenario = ScenarioOverrides(faults: [.ackBeforeDurable]).apply(to: try BuiltinScenarios.load("power-loss"))
        let runs = (UInt64(1)...5).map { Simulation.run(scenario, seed: $0) }
        let caught = runs.filter { $0.verdict == .invalid }
        #expect(caught.count >= 3, "caught in \(caught.count) of 5 seeds")
        for run in caught {
            #expect(Self.powerLossNotes(run).contains { !$0.hasPrefix("power loss: 0 ") }, "invalid with nothing lost: \(Self.powerLossNotes(run))")
        }
    }

    @Test func aServerRestartNeverCatchesAckBeforeDurable() throws {
        // The same scenario with kill -9 instead of a power loss: what was written survives.
        var scenario = try BuiltinScenarios.load("power-loss")
        scenario.nemeses = scenario.nemeses.map { n in var n = n; n.kind = .serverRestart; return n }
        let faulty = ScenarioOverrides(faults: [.ackBeforeDurable]).apply(to: scenario)
        #expect(faulty.cannotExercise(.ackBeforeDurable) != nil)
        for seed: UInt64 in 1...5 {
            let result = Simulation.run(faulty, seed: seed)
            #expect(result.verdict == .valid, "seed \(seed): \(result.results.filter { $0.verdict != .valid })")
            #expect(result.counts.serverRestarts > 0)
        }
    }

    @Test func powerLossIsANemesisKindScenariosDecode() throws {
        let scenario = try BuiltinScenarios.load("power-loss")
        #expect(scenario.nemeses.map(\.kind) == [.powerLoss])
        #expect(NemesisSpec.Kind(rawValue: "power-loss") == .powerLoss)
    }
}
