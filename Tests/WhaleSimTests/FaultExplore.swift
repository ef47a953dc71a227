import Testing
import WhaleProtocol
@testable import WhaleSim

@Suite struct FaultExplore {
    @Test(arguments: [
        (Fault.clientTiePriority, "same-position-storm"), (.utf8LengthUnits, "unicode"), (.graphemeLengthUnits, "unicode"),
        (.composeSignError, "convergence-smoke"), (.reconnectDropsUnacked, "flaky-network"), (.serverDropsSlowClient, "flaky-network"),
        (.serverAppliesResendTwice, "flaky-network"), (.remoteCursorWrongRule, "convergence-smoke"), (.revisionResetOnEmpty, "flaky-network"),
    ])
    func explore(_ fault: Fault, _ name: String) throws {
        let base = try BuiltinScenarios.load(name)
        let overrides = ScenarioOverrides(faults: [fault])
        let scenario = overrides.apply(to: base)
        var found: (UInt64, CheckerName)?
        var checkers: [CheckerName: Int] = [:]
        for seed: UInt64 in 1...50 {
            let r = Simulation.run(scenario, seed: seed)
            for c in r.results where c.verdict == .invalid { checkers[c.checker, default: 0] += 1 }
            if found == nil, let c = r.firstInvalid { found = (seed, c); print(fault, "seed", seed, r.results.filter { $0.verdict != .valid }.map { "\($0.checker): \($0.evidence.prefix(2))" }) }
        }
        print(fault, "invalid by checker over 50 seeds:", checkers.sorted { $0.key < $1.key })
        guard let (seed, checker) = found else { Issue.record("\(fault) not found"); return }
        let shrunk = Shrinker.shrink(scenario: base, overrides: overrides, seed: seed, checker: checker)
        print(fault, "shrunk:", shrunk.replayCommand(scenarioRef: name), "runs", shrunk.runs, shrunk.result.results.filter { $0.verdict == .invalid }.map { "\($0.checker): \($0.evidence.prefix(3))" })
    }
}
