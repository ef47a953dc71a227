import WhaleProtocol

/// Shrinks a failing run: re-runs the deterministic simulation with a smaller queue bound,
/// fewer clients, one document, fewer ops, no nemeses and shorter delays, keeping each reduction that still makes
/// the same checker say `invalid`. A reduction is tried with a few neighbouring seeds too
/// (shrinking changes the random streams, so the same bug may need another seed to show).
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
            (["whalesim", "simulate", scenarioRef, "--seed", "\(seed)"] + overrides.arguments).joined(separator: " ")
        }
    }

    /// `base` is the scenario before overrides; `overrides` and `seed` reproduce the failure.
    public static func shrink(scenario base: Scenario, overrides: ScenarioOverrides, seed: UInt64, checker: CheckerName,
                              seedsPerCandidate: Int = 10, maxRuns: Int = 500) -> Outcome {
        var best = overrides
        var bestSeed = seed
        var bestResult = Simulation.run(overrides.apply(to: base), seed: seed)
        var runs = 1

        /// Tries a reduction; adopts it if some nearby seed still fails with `checker`.
        func attempt(_ candidate: ScenarioOverrides) -> Bool {
            for k in 0..<UInt64(seedsPerCandidate) {
                guard runs < maxRuns else { return false }
                let s = bestSeed &+ k
                let result = Simulation.run(candidate.apply(to: base), seed: s)
                runs += 1
                if result.results.contains(where: { $0.checker == checker && $0.verdict == .invalid }) {
                    best = candidate
                    bestSeed = s
                    bestResult = result
                    return true
                }
            }
            return false
        }

        var current: Scenario { best.apply(to: base) }
        for pass in 0..<3 {
            // Still big after a pass: a smaller link queue bound lets backpressure (and what a
            // fault does with it) show with less traffic, so fewer clients and ops can fail.
            if pass > 0, current.clients > 3 || current.ops > 10, current.queueBound > 2 {
                var c = best; c.queueBound = 2
                _ = attempt(c)
            }
            // Fewer clients (smallest first), then one document.
            for n in [1, 2, 3] where n < current.clients {
                var c = best; c.clients = n
                if attempt(c) { break }
            }
            if current.documents > 1 { var c = best; c.documents = 1; _ = attempt(c) }
            // Fewer ops: the smallest rung of the ladder that still fails.
            for n in [1, 2, 3, 4, 5, 6, 8, 10, 14, 20, 30, 50, 80, 120, 200, 300] where n < current.ops {
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
}
