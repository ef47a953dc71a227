import Foundation
import WhaleProtocol

/// Which known defect a foreign server (or client) behaves like: a reproducer that does not fail
/// against whalesim's correct server is run again with each catalog fault of that side that its
/// script can exercise, then with their pairs when no single one reproduces, until the budget is
/// spent. A fault is named when the same checker fails with the same kind of evidence as live.
///
/// ```swift
/// let d = FaultDiagnosis.run(scenario, live: summary, checker: .convergence, kinds: kinds,
///                            side: .server, liveApplies: 408, deadline: Date() + 30)
/// d.matches.first?.faults  // [.serverAppliesResendTwice]
/// ```
///
/// When several reproduce, they are ranked by how closely the simulated run matches the live one:
/// first the checkers whose verdict agrees with the live verdict, then the live evidence claims the
/// simulated evidence repeats, then how near the simulated server's apply count is to the live one.
public struct FaultDiagnosis: Sendable {
    /// Whose code the defect sits in: the side of the run that was not whalesim's own.
    public enum Side: String, Sendable, Codable {
        case server, client
        /// `the server's` / `the client's`, for sentences.
        public var possessive: String { self == .server ? "the server's" : "the clients'" }
    }

    /// One fault set that reproduces, with how closely it matches the live run.
    public struct Match: Sendable {
        public var faults: [Fault]
        /// Checkers whose simulated verdict equals the live verdict.
        public var checkersAgreeing: Int
        public var checkersCompared: Int
        /// Distinct live evidence claims the simulated evidence repeats.
        public var claimsMatched: Int
        /// Ops the simulated server applied to the note (the live server applied `liveApplies`).
        public var applies: Int
        public var result: SimulationResult

        /// `server-applies-resend-twice (applies an op resent after a reconnect a second time)`,
        /// ` + ` between the faults of a pair.
        public var name: String { faults.map { "\($0.rawValue) (\($0.summary))" }.joined(separator: " + ") }
    }

    /// Why the diagnosis stopped before trying every candidate (nil: it tried them all).
    public enum Stop: String, Sendable {
        case budget = "its time budget ran out"
        case noExercisableFault = "the reproducer's script can exercise none of the catalog's faults of that side"
    }

    public var side: Side
    /// The fault sets run, in order (singles, then pairs).
    public var tried: [[Fault]]
    /// Faults of the side the script cannot exercise, with why (``Scenario/cannotExercise(_:)``).
    public var unexercisable: [(fault: Fault, reason: String)]
    /// Faults of the side only a live server shows (tokens, sizes, rates, ids): no simulation
    /// can try them; `whalesim conform` checks them.
    public var liveServerOnly: [Fault] = []
    /// The fault sets that reproduce, best first.
    public var matches: [Match]
    /// Fault sets that fail the checker as live but also show what the live run did not, with what.
    public var rejected: [(faults: [Fault], why: String)] = []
    public var stop: Stop?
    /// Ops the live server applied to the note.
    public var liveApplies: Int
    public var seconds: Double

    /// Runs `scenario` (a reproducer that did not reproduce) with each candidate fault set until
    /// one or more reproduce `checker` with evidence of `kinds`, or `deadline` passes.
    public static func run(
        _ scenario: Scenario, live: LiveRecordSummary, checker: CheckerName, kinds: Set<String>, side: Side,
        liveApplies: Int, deadline: Date
    ) -> FaultDiagnosis {
        let started = Date()
        var d = search(
            scenario, live: live, checker: checker, kinds: kinds, side: side, liveApplies: liveApplies,
            deadline: deadline)
        d.seconds = Date().timeIntervalSince(started)
        return d
    }

    static func search(
        _ scenario: Scenario, live: LiveRecordSummary, checker: CheckerName, kinds: Set<String>, side: Side,
        liveApplies: Int, deadline: Date
    ) -> FaultDiagnosis {
        let already = Set(scenario.faults)
        var candidates: [Fault] = []
        var unexercisable: [(Fault, String)] = []
        var liveOnly: [Fault] = []
        for fault in Fault.allCases where fault.isClientSide == (side == .client) && !already.contains(fault.rawValue) {
            if Scenario.liveServerOnly(fault) != nil {
                liveOnly.append(fault)
            } else if let reason = scenario.cannotExercise(fault) {
                unexercisable.append((fault, reason))
            } else {
                candidates.append(fault)
            }
        }
        var d = FaultDiagnosis(
            side: side, tried: [], unexercisable: unexercisable, matches: [], stop: nil, liveApplies: liveApplies,
            seconds: 0)
        d.liveServerOnly = liveOnly
        guard !candidates.isEmpty else {
            d.stop = .noExercisableFault
            return d
        }
        let liveClaims = Set(kinds.map(EvidenceKind.claim))
        func attempt(_ faults: [Fault]) -> Bool {
            guard Date() < deadline else {
                d.stop = .budget
                return false
            }
            var s = scenario
            s.faults += faults.map(\.rawValue)
            let result = Simulation.run(s, seed: s.seed)
            d.tried.append(faults)
            guard ScriptShrinker.fails(result, checker: checker, kinds: kinds) else { return true }
            if let why = Self.contradiction(result, live: live) {
                d.rejected.append((faults, why))
                return true
            }
            var agreeing = 0
            for r in live.results {
                if let simulated = result.results.first(where: { $0.checker == r.checker }) {
                    if simulated.verdict == r.verdict { agreeing += 1 }
                }
            }
            let simulatedClaims = Set(
                result.results.flatMap(\.evidence).map { EvidenceKind.claim(EvidenceKind.of($0)) })
            d.matches.append(
                Match(
                    faults: faults, checkersAgreeing: agreeing, checkersCompared: live.results.count,
                    claimsMatched: liveClaims.intersection(simulatedClaims).count,
                    applies: Self.applies(result.history), result: result))
            return true
        }
        for fault in candidates where !attempt([fault]) { break }
        if d.matches.isEmpty, d.stop == nil, candidates.count > 1 {
            pairs: for i in candidates.indices {
                for j in candidates.indices where j > i {
                    if !attempt([candidates[i], candidates[j]]) { break pairs }
                }
            }
        }
        d.matches.sort { a, b in
            let ka = (-a.checkersAgreeing, -a.claimsMatched, abs(a.applies - liveApplies))
            let kb = (-b.checkersAgreeing, -b.claimsMatched, abs(b.applies - liveApplies))
            if ka != kb { return ka < kb }
            return Self.catalogOrder(a.faults).lexicographicallyPrecedes(Self.catalogOrder(b.faults))
        }
        return d
    }

    /// What a simulated run shows that the live one did not, or nil: a checker invalid in
    /// simulation must be invalid (or unknown) live, and repeat at least one claim of its live
    /// evidence. A fault whose symptoms the live run lacked did not happen there: a server that
    /// misorders broadcasts diverges its clients as one that applies resends twice does, but never
    /// shows an op applied twice.
    ///
    /// Except a client that diverged after the simulated server lost acknowledged ops in a restart:
    /// a client that comes back at a revision the new history has reached again resyncs onto ops it
    /// never saw. Whether one does hangs on which writes the live storage kept and when each client
    /// came back, which the record does not carry, so the live run's clients not diverging says
    /// nothing about the fault.
    static func contradiction(_ result: SimulationResult, live: LiveRecordSummary) -> String? {
        let lostInRestart = result.history.entries.contains {
            if case .serverRevision(_, let from, let to, Simulation.restartCause) = $0.event {
                from > to
            } else {
                false
            }
        }
        let diverged = "# diverged from the server on #"
        for simulated in result.results where simulated.verdict == .invalid {
            guard let l = live.results.first(where: { $0.checker == simulated.checker }) else { continue }
            if l.verdict == .valid {
                if lostInRestart,
                    simulated.evidence.allSatisfy({ EvidenceKind.claim(EvidenceKind.of($0)) == diverged })
                {
                    continue
                }
                let first = simulated.evidence.first.map { ": \($0)" } ?? ""
                return "\(simulated.checker.rawValue) invalid, valid live\(first)"
            }
            guard l.verdict == .invalid, !l.evidence.isEmpty else { continue }
            let liveClaims = Set(l.evidence.map { EvidenceKind.claim(EvidenceKind.of($0)) })
            if !simulated.evidence.contains(where: { liveClaims.contains(EvidenceKind.claim(EvidenceKind.of($0))) }) {
                let first = simulated.evidence.first.map { ": \($0)" } ?? ""
                return "\(simulated.checker.rawValue) invalid with evidence of another kind than live\(first)"
            }
        }
        return nil
    }

    /// The ops the (simulated) server applied to the reproducer's note, document 0.
    static func applies(_ history: History) -> Int {
        history.entries.reduce(0) { n, e in
            if case .serverApply(0, _, _, _, _) = e.event { n + 1 } else { n }
        }
    }

    static func catalogOrder(_ faults: [Fault]) -> [Int] { faults.map { Fault.allCases.firstIndex(of: $0)! } }

    /// Fault sets whose match is as close as the best one's: the diagnosis cannot tell them apart.
    public var indistinguishable: [Match] {
        guard let best = matches.first else { return [] }
        return matches.dropFirst().filter {
            $0.checkersAgreeing == best.checkersAgreeing && $0.claimsMatched == best.claimsMatched
                && abs($0.applies - liveApplies) == abs(best.applies - liveApplies)
        }
    }

    /// The one sentence a report and a terminal lead with.
    public var sentence: String {
        if let best = matches.first {
            let who = side == .server ? "your server" : "your client"
            return "\(who) behaves like \(best.name)"
        }
        let why = stop.map { "stopped because \($0.rawValue)" } ?? "every candidate tried"
        return
            "reproduces with none of the catalog's faults (\(tried.count) \(side.rawValue)-side fault set\(tried.count == 1 ? "" : "s") tried, \(why)): the defect is not one whalesim knows"
    }
}
