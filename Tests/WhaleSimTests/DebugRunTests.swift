import Testing
@testable import WhaleSim

@Suite struct DebugRunTests {
    @Test func one() throws {
        let scenario = try BuiltinScenarios.load("server-restart")
        let result = Simulation.run(scenario, seed: 11)
        let lines = result.history.jsonLines().split(separator: "\n")
        for l in lines where l.contains("c01") || l.contains("server") || l.contains("heal") { print(l.prefix(300)) }
    }
}
