import Testing
import WhaleProtocol
@testable import WhaleSim

/// The simulator's power loss: a crash that also loses what the storage had written but not made
/// durable. The reference server loses nothing acknowledged; `ack-before-durable` loses acknowledged
/// ops to a power loss but never to a plain server restart (kill -9 keeps what was written).
@Suite struct PowerLossTests {
    static func powerLossNotes(_ result: SimulationResult) -> [String] {
        result.history.entries.compactMap {
            if case .note(let t) = $0.event, t.hasPrefix("power loss:") { t } else { nil }
        }
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
            #expect(
                Self.powerLossNotes(run).contains { !$0.hasPrefix("power loss: 0 ") },
                "invalid with nothing lost: \(Self.powerLossNotes(run))")
        }
    }

    @Test func aServerRestartNeverCatchesAckBeforeDurable() throws {
        // The same scenario with kill -9 instead of a power loss: what was written survives.
        var scenario = try BuiltinScenarios.load("power-loss")
        scenario.nemeses = scenario.nemeses.map { n in
            var n = n; n.kind = .serverRestart; return n
        }
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

/// `storage.synchronous` (`simulate --sqlite-synchronous`): the simulator's model of a server whose
/// storage does not sync every commit, as `serve --sqlite-synchronous off|normal` runs the reference
/// server. A power loss takes what the operating system had not written back; a kill -9 takes nothing.
@Suite struct StorageSyncTests {
    static func scenario(_ level: StorageSync, nemesis: NemesisSpec.Kind = .powerLoss) throws -> Scenario {
        var s = ScenarioOverrides(storageSync: level).apply(to: try BuiltinScenarios.load("power-loss"))
        s.nemeses = s.nemeses.map { n in
            var n = n; n.kind = nemesis; return n
        }
        return s
    }

    @Test func synchronousOffLosesAcknowledgedOpsToEveryPowerLoss() throws {
        let scenario = try Self.scenario(.off)
        for seed: UInt64 in 1...5 {
            let result = Simulation.run(scenario, seed: seed)
            // Nothing is written back within a second, so the first power loss takes every op so far.
            #expect(result.verdict == .invalid, "seed \(seed)")
            let intention = result.results.first { $0.checker == .intention }
            #expect(intention?.verdict == .invalid, "seed \(seed): the lost acknowledged ops are named")
            #expect(
                intention?.evidence.contains { $0.contains("an acknowledged edit was lost") } == true,
                "\(intention?.evidence.prefix(3) ?? [])")
            #expect(PowerLossTests.powerLossNotes(result).contains { !$0.hasPrefix("power loss: 0 ") })
        }
    }

    @Test func synchronousOffLosesNothingToAKill() throws {
        // kill -9 leaves the page cache: what a server at synchronous = OFF wrote survives it.
        let scenario = try Self.scenario(.off, nemesis: .serverRestart)
        for seed: UInt64 in 1...5 {
            let result = Simulation.run(scenario, seed: seed)
            #expect(result.verdict == .valid, "seed \(seed): \(result.results.filter { $0.verdict != .valid })")
            #expect(result.counts.serverRestarts > 0)
        }
    }

    @Test func synchronousNormalLosesWhatTheLastCheckpointDidNotSync() throws {
        let scenario = try Self.scenario(.normal)
        let runs = (UInt64(1)...5).map { Simulation.run(scenario, seed: $0) }
        #expect(runs.contains { $0.verdict == .invalid }, "a power loss between checkpoints loses acknowledged ops")
        // At most one checkpoint interval is lost each time: fewer entries than at OFF, where
        // everything written since the start goes.
        let offRuns = try (UInt64(1)...5).map { Simulation.run(try Self.scenario(.off), seed: $0) }
        func lost(_ runs: [SimulationResult]) -> Int {
            runs.flatMap(PowerLossTests.powerLossNotes).compactMap { Int($0.split(separator: " ")[2]) }.reduce(0, +)
        }
        #expect(lost(runs) < lost(offRuns), "normal lost \(lost(runs)), off \(lost(offRuns))")
    }

    @Test func theLevelsSyncWhenTheirModelSays() {
        #expect(StorageSync.full.durableAt(writtenAt: 1234) == nil)
        #expect(StorageSync.normal.durableAt(writtenAt: 1234) == 1500)
        #expect(StorageSync.normal.durableAt(writtenAt: 1500) == 2000)
        #expect(StorageSync.off.durableAt(writtenAt: 1234) == 31_234)
    }

    @Test func theLevelIsDecodedStrictlyAndKeptByOverridesAndScripts() throws {
        let yaml = "name: s\nstorage: {synchronous: off}\n"
        #expect(try Scenario.decode(yaml: yaml, source: "s.yml").storageSync == .off)
        #expect(try Scenario.decode(yaml: "name: s\n", source: "s.yml").storageSync == .full)
        #expect(throws: ScenarioError.self) {
            try Scenario.decode(yaml: "name: s\nstorage: {synchronous: sometimes}\n", source: "s.yml")
        }
        do {
            _ = try Scenario.decode(yaml: "name: s\nstorage: {synchronous: sometimes, sync: off}\n", source: "s.yml")
        } catch {
            let text = error.problems.joined(separator: "\n")
            #expect(
                text.contains("storage.synchronous: expected one of full, normal, off, got \"sometimes\""), "\(text)")
            #expect(text.contains("sync"), "the unknown key is named: \(text)")
        }
        #expect(ScenarioOverrides(storageSync: .off).arguments == ["--sqlite-synchronous", "off"])
        #expect(ScenarioOverrides().arguments.isEmpty)
        // A reproducer cut from such a run keeps the level.
        var scripted = try Scenario.decode(
            yaml: "name: s\nclients: {count: 1}\nscript:\n  steps: []\n", source: "s.yml")
        scripted.storageSync = .normal
        #expect(try Scenario.decode(yaml: scripted.scriptedYAML(), source: "r.yml").storageSync == .normal)
    }
}
