import ArgumentParser
import Foundation
import WhaleProtocol
import WhaleReports
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
        /// The signal that stopped the seeds early: no new seed started after it.
        var interrupted: String?
    }

    /// How `execute` shows progress over many seeds: a bar redrawn on a terminal (stderr), or
    /// the plain lines (every tenth of the seeds and every failure) a log gets.
    enum ProgressStyle: Sendable { case bar, lines }

    func printOptions() {
        let s = scenario
        print("whalesim simulate \(scenarioRef) (whalesim \(WhaleSimVersion.current))")
        let seeds = seedCount == 1 ? "seed \(firstSeed)" : "seeds \(firstSeed)...\(firstSeed + UInt64(seedCount) - 1)"
        print(
            "  \(seeds); \(s.clients) clients on \(s.documents) document(s), protocol \(s.protocolVersion), \(s.alphabet.rawValue) text"
        )
        print(
            "  \(s.ops) ops; delay \(s.delay.description); think \(s.thinkTime.description); queue bound \(s.queueBound)"
        )
        print("  ticks: safety \(s.safetyTicks), liveness budget \(s.livenessBudget)")
        let nemeses = s.nemeses.map { $0.kind.rawValue }
        print(
            "  nemeses: \(nemeses.isEmpty ? "none" : nemeses.joined(separator: ", ")); faults: \(s.faultWindows.isEmpty ? "none" : s.faultWindows.map(\.description).joined(separator: ", "))"
        )
        print("  checkers: \(s.checkers.map(\.rawValue).joined(separator: ", "))")
        if s.storageSync != .full {
            print("  storage: synchronous \(s.storageSync.rawValue) (what a power loss takes: StorageSync)")
        }
        for (fault, reason) in unexercisedFaults {
            print("  warning: --fault \(fault.rawValue) cannot be exercised: \(reason)")
        }
    }

    /// Runs every seed (in parallel, at most one per core) and shrinks the first failure. Once
    /// `interrupted` says a signal came, no seed starts; those running finish, and the outcome
    /// covers the seeds done (nothing is shrunk).
    func execute(
        progress: @escaping @Sendable (String) -> Void, style: ProgressStyle = .lines,
        interrupted: @escaping @Sendable () -> String? = { nil },
        onSeed: @escaping @Sendable (UInt64, Verdict) -> Void = { _, _ in }
    ) async -> Outcome {
        let scenario = self.scenario
        let seeds = (0..<seedCount).map { firstSeed &+ UInt64($0) }
        var verdicts: [(UInt64, Verdict)] = []
        var kept: [UInt64: SimulationResult] = [:]
        var stoppedBy: String?
        if seeds.count == 1 {
            let result = Simulation.run(scenario, seed: seeds[0])
            onSeed(seeds[0], result.verdict)
            verdicts = [(seeds[0], result.verdict)]
            kept[seeds[0]] = result
        } else {
            let width = max(1, ProcessInfo.processInfo.activeProcessorCount)
            let started = ContinuousClock.now
            var failures = 0
            var lastDrawn = ContinuousClock.now - .seconds(1)
            func figures(_ done: Int) -> SeedProgress {
                let elapsed = ContinuousClock.now - started
                return SeedProgress(
                    done: done, total: seeds.count, failures: failures,
                    elapsedSeconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
            }
            await withTaskGroup(of: (UInt64, SimulationResult).self) { group in
                var next = 0
                func add() {
                    let s = seeds[next]
                    next += 1
                    group.addTask { (s, Simulation.run(scenario, seed: s)) }
                }
                while next < min(width, seeds.count) { add() }
                var done = 0
                if style == .bar { Self.draw(figures(0).bar()) }
                while let (s, result) = await group.next() {
                    done += 1
                    onSeed(s, result.verdict)
                    verdicts.append((s, result.verdict))
                    if result.verdict != .valid { failures += 1 }
                    if result.verdict != .valid || s == seeds[0] { kept[s] = result }
                    switch style {
                    case .lines:
                        if result.verdict != .valid || done % max(1, seeds.count / 10) == 0 {
                            progress("  [\(done)/\(seeds.count)] seed \(s): \(result.verdict.rawValue)")
                        }
                    case .bar:
                        // A failure gets its own line above the bar; the bar is redrawn at most 10 times a second.
                        if result.verdict != .valid {
                            Self.draw(nil); progress("  [\(done)/\(seeds.count)] seed \(s): \(result.verdict.rawValue)")
                        }
                        if result.verdict != .valid || done == seeds.count
                            || ContinuousClock.now - lastDrawn >= .milliseconds(100)
                        {
                            Self.draw(figures(done).bar())
                            lastDrawn = ContinuousClock.now
                        }
                    }
                    if stoppedBy == nil, let signal = interrupted() { stoppedBy = signal }
                    if next < seeds.count, stoppedBy == nil { add() }
                }
            }
            if style == .bar {
                Self.draw(figures(verdicts.count).bar()); FileHandle.standardError.write(Data("\n".utf8))
            }
            if let stoppedBy {
                progress(
                    "  interrupted by \(stoppedBy): \(verdicts.count) of \(seeds.count) seeds done, \(seeds.count - verdicts.count) not started"
                )
            }
            verdicts.sort { $0.0 < $1.0 }
        }
        // Report the lowest failing seed (invalid first, then unknown), else the first seed.
        let pick = verdicts.first { $0.1 == .invalid } ?? verdicts.first { $0.1 == .unknown } ?? verdicts[0]
        let reported = kept[pick.0]!
        var shrunk: Shrinker.Outcome?
        if shrink, stoppedBy == nil, let checker = reported.firstInvalid {
            progress("  shrinking seed \(pick.0) (\(checker.rawValue) invalid)...")
            shrunk = Shrinker.shrink(scenario: base, overrides: overrides, seed: pick.0, checker: checker)
        }
        return Outcome(
            verdicts: verdicts.map { (seed: $0.0, verdict: $0.1) }, reported: reported, shrunk: shrunk,
            interrupted: stoppedBy)
    }

    /// Redraws the bar in place on stderr (`\r`, clear to the end of the line); nil only clears it.
    static func draw(_ bar: String?) {
        FileHandle.standardError.write(Data(("\r\u{1B}[K" + (bar ?? "")).utf8))
    }

    /// Prints verdicts, writes the run record, and returns the exit code (and, through
    /// `writtenTo`, the run directory once written).
    func finish(
        _ outcome: Outcome, reportDir: String, startedAt: Date = Date(), writtenTo: ((String) -> Void)? = nil
    ) -> ExitCode {
        let result = outcome.reported
        if seedCount > 1 {
            let invalid = outcome.verdicts.filter { $0.verdict == .invalid }.count
            let unknown = outcome.verdicts.filter { $0.verdict == .unknown }.count
            let ran = outcome.verdicts.count
            let of =
                outcome.interrupted == nil
                ? "\(ran) seeds" : "\(ran) of \(seedCount) seeds (interrupted by \(outcome.interrupted!))"
            print(
                "\(of): \(ran - invalid - unknown) valid, \(invalid) invalid, \(unknown) unknown; details for seed \(result.seed)"
            )
        }
        print(
            "seed \(result.seed): \(result.counts.edits) edits, \(result.counts.messages) messages, \(result.counts.ticks) ticks, history \(result.history.hash)"
        )
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
        var written = false
        do {
            let dir = try ReportWriter.write(
                record: record, history: result.history, shrunkHistory: outcome.shrunk?.result.history,
                scenario: result.scenario.name, seed: result.seed, root: reportDir, startedAt: startedAt)
            print("report: \(dir)/report.html")
            writtenTo?(dir)
            written = true
        } catch {
            printError("whalesim: could not write the run's record, so its run directory is incomplete: \(error)")
        }
        let code = verdictCode(outcome, result: result)
        let exit = ReportRoot.exitCode(verdict: code.rawValue, written: written)
        if exit != code.rawValue {
            printError("whalesim: exit \(exit): the verdict above was reached, but its record was not written")
        }
        return ExitCode(exit)
    }

    /// The exit code the verdicts give, before the record is written.
    private func verdictCode(_ outcome: Outcome, result: SimulationResult) -> ExitCode {
        let code = Self.exitCode(for: result)
        if outcome.interrupted != nil {
            // Seeds that never ran prove nothing: at best inconclusive.
            return code.rawValue == ExitStatus.correctnessViolated.rawValue ? code : ExitStatus.inconclusive
        }
        if code.rawValue == ExitStatus.pass.rawValue, let (fault, reason) = unexercisedFaults.first {
            print("inconclusive: --fault \(fault.rawValue) cannot be exercised: \(reason)")
            return ExitStatus.inconclusive
        }
        return code
    }

    /// Faults switched on that this scenario cannot exercise, with why: a pass would prove nothing.
    var unexercisedFaults: [(Fault, String)] {
        let s = scenario
        return s.faults.compactMap(Fault.init(rawValue:)).compactMap { fault in
            s.cannotExercise(fault).map { (fault, $0) }
        }
    }

    /// 2 if any checker is invalid; 3 if a checker is unknown and no `!= invalid` threshold
    /// accepts it (or a threshold is breached); 0 otherwise.
    static func exitCode(for result: SimulationResult) -> ExitCode {
        if result.verdict == .invalid { return ExitStatus.correctnessViolated }
        if !result.breachedThresholds.isEmpty { return ExitStatus.inconclusive }
        let accepted = Set(
            result.scenario.thresholds.filter { $0.relation == .notEquals && $0.verdict == .invalid }.map(\.checker))
        if result.results.contains(where: { $0.verdict == .unknown && !accepted.contains($0.checker) }) {
            return ExitStatus.inconclusive
        }
        return ExitStatus.pass
    }
}
