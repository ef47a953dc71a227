import ArgumentParser
import Foundation
import WhaleBench
import WhaleSim
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `whalesim bench sim`: simulated client ops per second on one core, with every checker on.
/// Runs `convergence-smoke` over consecutive seeds, five times, and prints the median; the
/// baseline in the same run is the simulation with no checker (what checking costs).
/// Rates are per second of this thread's CPU time (what one core does, even on a busy
/// machine); the wall-clock rate is printed beside it.
struct BenchSimCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sim",
        abstract: "Simulated client ops per second per core, all checkers on (release build).",
        discussion: """
            Examples:
              swift run -c release whalesim bench sim
              swift run -c release whalesim bench sim --seeds 50 --repetitions 3
            """
    )

    @Option(help: "Seeds per repetition.")
    var seeds = 200

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
        // Interleaved repetitions, so a busy machine slows both measurements alike.
        var checked: [(cpu: Double, wall: Double)] = [], baseline: [(cpu: Double, wall: Double)] = []
        for rep in 0..<repetitions {
            checked.append(measure(base, repetition: rep))
            baseline.append(measure(bare, repetition: rep))
        }
        for (label, rates) in [("all checkers", checked), ("no checkers (baseline)", baseline)] {
            let cpu = rates.map(\.cpu), wall = rates.map(\.wall)
            print(
                "  \(label): median \(Int(median(cpu))) ops/s per core (CPU time; runs: \(cpu.map { String(Int($0)) }.joined(separator: ", "))), wall clock \(Int(median(wall))) ops/s"
            )
        }
    }

    /// Client ops (edits) per second over `seeds` runs, each fully simulated and checked.
    func measure(_ scenario: Scenario, repetition rep: Int) -> (cpu: Double, wall: Double) {
        let clock = ContinuousClock()
        var edits = 0
        var failures = 0
        let cpuStart = threadCPUSeconds()
        let start = clock.now
        for k in 0..<seeds {
            let result = Simulation.run(scenario, seed: UInt64(rep * seeds + k + 1))
            edits += result.counts.edits
            if result.verdict != .valid { failures += 1 }
        }
        let elapsed = clock.now - start
        let cpu = threadCPUSeconds() - cpuStart
        if failures > 0 { printError("whalesim: \(failures) of \(seeds) benchmark runs were not valid") }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        return (Double(edits) / cpu, Double(edits) / seconds)
    }

    /// CPU time this thread has used, in seconds.
    func threadCPUSeconds() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) * 1e-9
    }

    func median(_ xs: [Double]) -> Double {
        let s = xs.sorted()
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }
}
