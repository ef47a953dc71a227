import ArgumentParser
import Foundation
import WhaleProtocol
import WhaleSim

/// What `whalesim simulate` was asked to do, validated: the scenario, its overrides and the seeds.
struct SimulationPlan: Sendable {
    var scenarioRef: String
    var base: Scenario
    var overrides: ScenarioOverrides
    var firstSeed: UInt64
    var seedCount: Int
    var shrink: Bool

    var scenario: Scenario { overrides.apply(to: base) }

    /// What one invocation produced: every seed's verdict, and the run to report in detail.
    struct Outcome: Sendable {
        var verdicts: [(seed: UInt64, verdict: Verdict)]
        var reported: SimulationResult
        var shrunk: Shrinker.Outcome?
    }

    func printOptions() {
        let s = scenario
        print("whalesim simulate \(scenarioRef) (whalesim \(WhaleSimVersion.current))")
        let seeds = seedCount == 1 ? "seed \(firstSeed)" : "seeds \(firstSeed)...\(firstSeed + UInt64(seedCount) - 1)"
        print("  \(seeds); \(s.clients) clients on \(s.documents) document(s), protocol \(s.protocolVersion), \(s.alphabet.rawValue) text")
        print("  \(s.ops) ops; delay \(s.delay.description); think \(s.thinkTime.description); queue bound \(s.queueBound)")
        print("  ticks: safety \(s.safetyTicks), liveness budget \(s.livenessBudget)")
        let nemeses = s.nemeses.map { $0.kind.rawValue }
        print("  nemeses: \(nemeses.isEmpty ? "none" : nemeses.joined(separator: ", ")); faults: \(s.faultWindows.isEmpty ? "none" : s.faultWindows.map(\.description).joined(separator: ", "))")
        print("  checkers: \(s.checkers.map(\.rawValue).joined(separator: ", "))")
        for (fault, reason) in unexercisedFaults { print("  warning: --fault \(fault.rawValue) cannot be exercised: \(reason)") }
    }

    /// Runs every seed (in parallel, at most one per core) and shrinks the first failure.
    func execute(progress: @escaping @Sendable (String) -> Void) async -> Outcome {
        let scenario = self.scenario
        let seeds = (0..<seedCount).map { firstSeed &+ UInt64($0) }
        var verdicts: [(UInt64, Verdict)] = []
        var kept: [UInt64: SimulationResult] = [:]
        if seeds.count == 1 {
            let result = Simulation.run(scenario, seed: seeds[0])
            verdicts = [(seeds[0], result.verdict)]
            kept[seeds[0]] = result
        } else {
            let width = max(1, ProcessInfo.processInfo.activeProcessorCount)
            await withTaskGroup(of: (UInt64, SimulationResult).self) { group in
                var next = 0
                func add() {
                    let s = seeds[next]
                    next += 1
                    group.addTask { (s, Simulation.run(scenario, seed: s)) }
                }
                while next < min(width, seeds.count) { add() }
                var done = 0
                while let (s, result) = await group.next() {
                    done += 1
                    verdicts.append((s, result.verdict))
                    if result.verdict != .valid || s == seeds[0] { kept[s] = result }
                    if result.verdict != .valid || done % max(1, seeds.count / 10) == 0 {
                        progress("  [\(done)/\(seeds.count)] seed \(s): \(result.verdict.rawValue)")
                    }
                    if next < seeds.count { add() }
                }
            }
            verdicts.sort { $0.0 < $1.0 }
        }
        // Report the lowest failing seed (invalid first, then unknown), else the first seed.
        let pick = verdicts.first { $0.1 == .invalid } ?? verdicts.first { $0.1 == .unknown } ?? verdicts[0]
        let reported = kept[pick.0]!
        var shrunk: Shrinker.Outcome?
        if shrink, let checker = reported.firstInvalid {
            progress("  shrinking seed \(pick.0) (\(checker.rawValue) invalid)...")
            shrunk = Shrinker.shrink(scenario: base, overrides: overrides, seed: pick.0, checker: checker)
        }
        return Outcome(verdicts: verdicts.map { (seed: $0.0, verdict: $0.1) }, reported: reported, shrunk: shrunk)
    }

    /// Prints verdicts, writes the run record, and returns the exit code.
    func finish(_ outcome: Outcome, reportDir: String, startedAt: Date = Date()) -> ExitCode {
        let result = outcome.reported
        if seedCount > 1 {
            let invalid = outcome.verdicts.filter { $0.verdict == .invalid }.count
            let unknown = outcome.verdicts.filter { $0.verdict == .unknown }.count
            print("\(seedCount) seeds: \(seedCount - invalid - unknown) valid, \(invalid) invalid, \(unknown) unknown; details for seed \(result.seed)")
        }
        print("seed \(result.seed): \(result.counts.edits) edits, \(result.counts.messages) messages, \(result.counts.ticks) ticks, history \(result.history.hash)")
        for r in result.results {
            print("  \(r.checker.rawValue.padding(toLength: 12, withPad: " ", startingAt: 0)) \(r.verdict.rawValue)")
            for line in r.evidence { print("      \(line)") }
            for line in r.findings { print("      finding: \(line)") }
        }
        for t in result.breachedThresholds { print("  threshold breached: \(t.description)") }
        var record = RunRecord(result: result, scenarioRef: scenarioRef, overrides: overrides, shrunk: outcome.shrunk)
        record.startedAt = ReportWriter.iso8601(startedAt)
        record.wallSeconds = Date().timeIntervalSince(startedAt)
        print("replay: \(record.replayCommand)")
        if let shrunk = outcome.shrunk {
            let s = shrunk.result.scenario
            print("shrunk (\(shrunk.runs) runs) to \(s.clients) clients, \(s.ops) ops:")
            print("  \(shrunk.replayCommand(scenarioRef: scenarioRef))")
        }
        do {
            let dir = try ReportWriter.write(record: record, history: result.history, shrunkHistory: outcome.shrunk?.result.history,
                                             scenario: result.scenario.name, seed: result.seed, root: reportDir, startedAt: startedAt)
            print("report: \(dir)/report.html")
        } catch {
            printError("whalesim: could not write the report: \(error)")
        }
        let code = Self.exitCode(for: result)
        if code.rawValue == ExitStatus.pass.rawValue, let (fault, reason) = unexercisedFaults.first {
            print("inconclusive: --fault \(fault.rawValue) cannot be exercised: \(reason)")
            return ExitStatus.inconclusive
        }
        return code
    }

    /// Faults switched on that this scenario cannot exercise, with why: a pass would prove nothing.
    var unexercisedFaults: [(Fault, String)] {
        let s = scenario
        return s.faults.compactMap(Fault.init(rawValue:)).compactMap { fault in s.cannotExercise(fault).map { (fault, $0) } }
    }

    /// 2 if any checker is invalid; 3 if a checker is unknown and no `!= invalid` threshold
    /// accepts it (or a threshold is breached); 0 otherwise.
    static func exitCode(for result: SimulationResult) -> ExitCode {
        if result.verdict == .invalid { return ExitStatus.correctnessViolated }
        if !result.breachedThresholds.isEmpty { return ExitStatus.inconclusive }
        let accepted = Set(result.scenario.thresholds.filter { $0.relation == .notEquals && $0.verdict == .invalid }.map(\.checker))
        if result.results.contains(where: { $0.verdict == .unknown && !accepted.contains($0.checker) }) { return ExitStatus.inconclusive }
        return ExitStatus.pass
    }
}
