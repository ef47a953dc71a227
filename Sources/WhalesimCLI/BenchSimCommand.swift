import ArgumentParser
import Foundation
import WhaleSim

/// `whalesim bench sim`: simulated client ops per second on one core, with every checker on.
/// Runs `convergence-smoke` over consecutive seeds, five times, and prints the median; the
/// baseline in the same run is the simulation with no checker (what checking costs).
struct BenchSimCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sim",
        abstract: "Simulated client ops per second per core, all checkers on (release build)."
    )

    @Option(help: "Seeds per repetition.")
    var seeds = 40

    @Option(help: "Repetitions (the median is reported).")
    var repetitions = 5

    @Option(help: "The scenario to simulate.")
    var scenario = "convergence-smoke"

    func run() async throws {
        let base: Scenario
        do { base = try BuiltinScenarios.load(scenario) } catch { throw BadInput(error.description).exit() }
        guard seeds > 0, repetitions > 0 else { throw BadInput("--seeds and --repetitions must be positive").exit() }
        var bare = base
        bare.checkers = []
        print("whalesim bench sim --scenario \(scenario) --seeds \(seeds) --repetitions \(repetitions)")
        print("  \(base.clients) clients, \(base.ops) ops per run, one core")
        let checked = measure(base)
        let baseline = measure(bare)
        print(String(format: "  all checkers: median %.0f ops/s (runs: %@)", median(checked), checked.map { String(format: "%.0f", $0) }.joined(separator: ", ")))
        print(String(format: "  no checkers (baseline): median %.0f ops/s (runs: %@)", median(baseline), baseline.map { String(format: "%.0f", $0) }.joined(separator: ", ")))
    }

    /// Ops per second for each repetition.
    func measure(_ scenario: Scenario) -> [Double] {
        let clock = ContinuousClock()
        var rates: [Double] = []
        for rep in 0..<repetitions {
            var edits = 0
            let start = clock.now
            for k in 0..<seeds {
                let result = Simulation.run(scenario, seed: UInt64(rep * seeds + k + 1))
                edits += result.counts.edits
                precondition(scenario.checkers.isEmpty || result.verdict == .valid, "seed \(rep * seeds + k + 1) failed: \(result.results)")
            }
            let elapsed = clock.now - start
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
            rates.append(Double(edits) / seconds)
        }
        return rates
    }

    func median(_ xs: [Double]) -> Double {
        let s = xs.sorted()
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }
}
