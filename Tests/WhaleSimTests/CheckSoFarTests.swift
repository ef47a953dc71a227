import Testing
@testable import WhaleSim

/// What the live view counts as "violations so far" (``CheckSoFar``) on a history cut anywhere:
/// nothing on a correct server's history, at any cut (a false alarm there would show on the
/// dashboard of a run that passes), and a faulty server's violations before the run ends,
/// never fewer at a later cut.
@Suite struct CheckSoFarTests {
    /// The first `n` entries of `history`, as a live run's history reads mid-run.
    static func prefix(_ history: History, _ n: Int) -> History {
        var cut = History(
            clientNames: history.clientNames, clientDocuments: history.clientDocuments,
            documentNames: history.documentNames, initialTexts: history.initialTexts,
            protocolVersion: history.protocolVersion)
        for entry in history.entries.prefix(n) { cut.append(entry.event, at: entry.time) }
        return cut
    }

    static func cuts(_ count: Int, parts: Int = 8) -> [Int] {
        (1...parts).map { count * $0 / parts }
    }

    /// Restarts, power losses, partitions, reconnects and resends on the reference server: the
    /// checkers that judge mid-run find nothing at any of eight cuts, seeds 1-12, with the live
    /// window and with one of 2 ops (an op judged almost as soon as it is applied).
    @Test(arguments: ["flaky-network", "power-loss", "convergence-smoke", "unicode", "same-position-storm"])
    func aCorrectServerShowsNoViolationAtAnyCut(_ name: String) throws {
        let scenario = try BuiltinScenarios.load(name)
        for seed in UInt64(1)...12 {
            let run = Simulation.run(scenario, seed: seed)
            for checker in CheckSoFar.checkers where scenario.checkers.contains(checker) {
                guard run.results.first(where: { $0.checker == checker })?.verdict == .valid else { continue }
                for n in Self.cuts(run.history.count) {
                    for window in [CheckSoFar.intentionWindow, 2] {
                        let found = try #require(CheckSoFar.check(checker, Self.prefix(run.history, n), window: window))
                        #expect(
                            found.violations == 0,
                            "\(name) seed \(seed) \(checker) at \(n)/\(run.history.count), window \(window): \(found.evidence)"
                        )
                    }
                }
            }
        }
    }

    /// A server that applies a resent op twice: the intention checker's live count shows it
    /// before the run heals, and the count never goes down at a later cut. (The simulator's notes
    /// get a few dozen ops each, fewer than the live window, so the pass holds 2 per note here.)
    @Test func aResendAppliedTwiceShowsBeforeTheEnd() throws {
        var scenario = try BuiltinScenarios.load("flaky-network")
        scenario.faults = ["server-applies-resend-twice"]
        var caught = 0
        for seed in UInt64(1)...30 {
            let run = Simulation.run(scenario, seed: seed)
            guard run.results.first(where: { $0.checker == .intention })?.verdict == .invalid else { continue }
            let entries = run.history.entries
            let heal = try #require(entries.firstIndex { if case .heal = $0.event { true } else { false } })
            var counts: [Int] = []
            for n in Self.cuts(heal, parts: 16) {
                counts.append(
                    try #require(CheckSoFar.check(.intention, Self.prefix(run.history, n), window: 2)).violations)
            }
            #expect(counts == counts.sorted(), "seed \(seed): \(counts)")
            if counts.last! > 0 { caught += 1 }
        }
        #expect(caught > 0, "no seed's double apply showed before the heal")
    }

    /// The end-state checkers say nothing mid-run: they wait for the verdict.
    @Test func endStateCheckersWaitForTheEnd() throws {
        let run = Simulation.run(try BuiltinScenarios.load("convergence-smoke"), seed: 1)
        for checker in [CheckerName.convergence, .cursors, .liveness, .model] {
            #expect(CheckSoFar.check(checker, run.history) == nil)
        }
    }
}
