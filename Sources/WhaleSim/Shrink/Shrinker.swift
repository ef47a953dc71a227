import WhaleProtocol

/// Shrinks a failing run: re-runs the deterministic simulation with a smaller queue bound,
/// (model scenarios) only the model workloads and one account, fewer clients (with every split
/// between the board and the account pages), one document, fewer ops, no nemeses and shorter
/// delays, keeping each reduction that still makes the same checker say `invalid`. A reduction
/// is tried with a few neighbouring seeds too (shrinking changes the random streams, so the
/// same bug may need another seed to show).
///
/// Fewer clients and fewer ops are searched together: for each smaller client count (and
/// board split) the first failing neighbouring seed is found at the current ops, then the
/// fewest ops that seed still fails with (a run with fewer ops is the same run cut short, so
/// the search halves a ladder of op counts); the pair with the fewest ops wins, then the
/// fewest clients. (Taking the fewest clients first can leave a failure that needs one
/// client's reconnects at 50 ops where two clients fail in 2.) A candidate and seed already
/// run is not run again.
///
/// ```swift
/// let shrunk = Shrinker.shrink(scenario: storm, overrides: .init(faults: [.clientTiePriority]), seed: 3, checker: .convergence)
/// shrunk.replayCommand(scenarioRef: "same-position-storm")
/// // whalesim simulate same-position-storm --seed 4 --clients 2 --ops 6 --fault client-tie-priority
/// ```
public enum Shrinker {
    public struct Outcome: Sendable {
        public var overrides: ScenarioOverrides
        public var seed: UInt64
        public var result: SimulationResult
        /// Simulations run while shrinking.
        public var runs: Int

        /// The one-line command that replays the minimal failure.
        public func replayCommand(scenarioRef: String) -> String {
            ShellCommand.line(["whalesim", "simulate", scenarioRef, "--seed", "\(seed)"] + overrides.arguments)
        }
    }

    /// The op counts the shrinker tries, smallest first.
    static let opsLadder = [1, 2, 3, 4, 5, 6, 8, 10, 14, 20, 30, 50, 80, 120, 200, 300]

    /// `base` is the scenario before overrides; `overrides` and `seed` reproduce the failure.
    public static func shrink(
        scenario base: Scenario, overrides: ScenarioOverrides, seed: UInt64, checker: CheckerName,
        seedsPerCandidate: Int = 10, maxRuns: Int = 500
    ) -> Outcome {
        // A scripted scenario draws nothing from its seed: nearby seeds would only repeat a run.
        let seedsPerCandidate = base.script == nil ? seedsPerCandidate : 1
        var best = overrides
        var bestSeed = seed
        var bestResult = Simulation.run(overrides.apply(to: base), seed: seed)
        var runs = 1

        struct Trial: Hashable {
            var overrides: ScenarioOverrides
            var seed: UInt64
        }
        /// Candidates already run that did not fail (a run is deterministic: no need to run it again).
        var passed: Set<Trial> = []

        /// Runs one candidate with one seed: its result if `checker` says invalid.
        func failing(_ candidate: ScenarioOverrides, seed s: UInt64) -> SimulationResult? {
            let trial = Trial(overrides: candidate, seed: s)
            guard runs < maxRuns, !passed.contains(trial) else { return nil }
            let result = Simulation.run(candidate.apply(to: base), seed: s)
            runs += 1
            if result.results.contains(where: { $0.checker == checker && $0.verdict == .invalid }) { return result }
            passed.insert(trial)
            return nil
        }

        /// The first of the nearby seeds with which `candidate` fails.
        func firstFailing(_ candidate: ScenarioOverrides) -> (seed: UInt64, result: SimulationResult)? {
            for k in 0..<UInt64(seedsPerCandidate) {
                let s = bestSeed &+ k
                if let result = failing(candidate, seed: s) { return (s, result) }
            }
            return nil
        }

        func adopt(_ candidate: ScenarioOverrides, _ s: UInt64, _ result: SimulationResult) {
            best = candidate
            bestSeed = s
            bestResult = result
        }

        /// Tries a reduction; adopts it if some nearby seed still fails with `checker`.
        func attempt(_ candidate: ScenarioOverrides) -> Bool {
            guard let (s, result) = firstFailing(candidate) else { return false }
            adopt(candidate, s, result)
            return true
        }

        /// The fewest ops of the ladder (below `candidate`'s) with which seed `s` still fails,
        /// by halving; nil if none does.
        func fewestOps(_ candidate: ScenarioOverrides, seed s: UInt64) -> (
            overrides: ScenarioOverrides, result: SimulationResult
        )? {
            let rungs = opsLadder.filter { $0 < candidate.apply(to: base).ops }
            var found: (ScenarioOverrides, SimulationResult)?
            var lo = 0, hi = rungs.count - 1
            while lo <= hi {
                let mid = (lo + hi) / 2
                var c = candidate; c.ops = rungs[mid]
                if let result = failing(c, seed: s) {
                    found = (c, result)
                    hi = mid - 1
                } else {
                    lo = mid + 1
                }
            }
            return found
        }

        var current: Scenario { best.apply(to: base) }
        for pass in 0..<3 {
            // Still big after a pass: a smaller link queue bound lets backpressure (and what a
            // fault does with it) show with less traffic, so fewer clients and ops can fail.
            if pass > 0, current.clients > 3 || current.ops > 10, current.queueBound > 2 {
                var c = best; c.queueBound = 2
                _ = attempt(c)
            }
            if let model = current.model {
                // A model failure needs no typing (which spends ops), and the account pages
                // one account (so that account-page clients meet).
                if !best.modelOnly { var c = best; c.modelOnly = true; _ = attempt(c) }
                if model.accounts > 1 { var c = best; c.accounts = 1; _ = attempt(c) }
            }
            // Fewer clients together with fewer ops (see above). The first `model.board`
            // clients are on the board: every split between the board and the account pages
            // is tried, or a failure on an account page could not lose the board's clients.
            var smallest: (overrides: ScenarioOverrides, seed: UInt64, result: SimulationResult)?
            clients: for n in [1, 2, 3] where n < current.clients {
                for board in boardSplits(current, clients: n) {
                    var c = best; c.clients = n
                    if let board { c.boardClients = board }
                    guard let (s, result) = firstFailing(c) else { continue }
                    let shorter = fewestOps(c, seed: s)
                    let candidate = (overrides: shorter?.overrides ?? c, seed: s, result: shorter?.result ?? result)
                    if smallest == nil || candidate.result.scenario.ops < smallest!.result.scenario.ops {
                        smallest = candidate
                    }
                    if smallest!.result.scenario.ops <= 2 { break clients }
                }
            }
            if let smallest { adopt(smallest.overrides, smallest.seed, smallest.result) }
            if current.documents > 1 { var c = best; c.documents = 1; _ = attempt(c) }
            // Fewer ops: first the seed that fails now, then the smallest rung that fails with a nearby seed.
            if let shorter = fewestOps(best, seed: bestSeed) { adopt(shorter.overrides, bestSeed, shorter.result) }
            for n in opsLadder where n < current.ops {
                var c = best; c.ops = n
                if attempt(c) { break }
            }
            // Drop nemeses one kind at a time.
            for kind in NemesisSpec.Kind.allCases where current.nemeses.contains(where: { $0.kind == kind }) {
                var c = best; c.withoutNemeses.append(kind)
                _ = attempt(c)
            }
            // Shorter delays.
            for cap in [1, 3, 10] where cap < current.delay.maximum {
                var c = best; c.delayMax = cap
                if attempt(c) { break }
            }
        }
        // Drop the queue bound override again if the small failure does not need it.
        if best.queueBound != nil { var c = best; c.queueBound = nil; _ = attempt(c) }
        return Outcome(overrides: best, seed: bestSeed, result: bestResult, runs: runs)
    }

    /// The board sizes to try with `n` clients: first nil (the scenario's as it stands, which
    /// puts at most `n` on the board), then, for a model scenario, every other from 0 to `n`.
    static func boardSplits(_ scenario: Scenario, clients n: Int) -> [Int?] {
        guard let model = scenario.model else { return [nil] }
        let natural = min(model.boardClients, n)
        return [nil] + (0...n).filter { $0 != natural }
    }
}
