import Testing
@testable import WhaleSim

@Suite struct DebugRunTests {
    @Test(arguments: ["convergence-smoke", "same-position-storm", "flaky-network", "server-restart", "unicode"])
    func smokeRun(_ name: String) throws {
        let scenario = try BuiltinScenarios.load(name)
        for seed: UInt64 in 1...5 {
            let result = Simulation.run(scenario, seed: seed)
            if result.verdict != .valid {
                print(name, seed, result.counts)
                for r in result.results where r.verdict != .valid { print(r.checker, r.verdict, r.evidence) }
            }
            #expect(result.verdict == .valid)
        }
    }
}
