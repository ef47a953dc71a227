import Foundation

/// A run record's failing note turned into a scripted simulator scenario, run, compared with the
/// live verdict and shrunk: what `whalesim reproduce` and a failing `whalesim run` print.
public struct Reproduction: Sendable {
    public enum Status: String, Sendable {
        /// The same checker fails with evidence of the same kind.
        case reproduced
        /// The same checker fails, with evidence of another kind.
        case otherEvidence = "other evidence"
        /// The simulated replay does not fail that checker.
        case notReproduced = "not reproduced"
    }

    public var note: LiveRecordSummary.Note
    public var checker: CheckerName
    /// The live evidence of `checker` about the note, and its kinds (``EvidenceKind``).
    public var liveEvidence: [String]
    public var scenario: Scenario
    public var result: SimulationResult
    public var status: Status
    /// Whether the simulated server applied the note's ops in the live order, in words.
    public var serverOrder: String
    public var shrunk: ScriptShrinker.Outcome?
    /// What could not be carried over, and why a violation did not reproduce.
    public var notes: [String]
    /// Which catalog fault the foreign side behaves like, when the reproducer did not fail
    /// against whalesim's correct code (nil: not needed, or nothing foreign to diagnose).
    public var diagnosis: FaultDiagnosis?

    /// Builds, runs and (when it reproduces) shrinks the reproducer of `requestedNote` (nil: the
    /// note of the first violation). Shrinking stops at `deadline`. When the reproducer does not
    /// fail and `diagnose` names a side (the record's ``LiveRecordSummary/foreignSide``), the
    /// side's catalog faults are tried first (``FaultDiagnosis``), within `diagnosisDeadline`; the
    /// best match's faults go into the reproducer.
    public static func make(
        summary: LiveRecordSummary, lines: [NamedHistoryLine], requestedNote: String?,
        deadline: Date = .distantFuture, shrink: Bool = true, diagnose: FaultDiagnosis.Side? = nil,
        diagnosisDeadline: Date? = nil
    ) throws(ReproduceError) -> Reproduction {
        let (note, checker, evidence) = try summary.failingNote(requested: requestedNote)
        var notes: [String] = []
        if checker == .model {
            throw ReproduceError(
                "the model checker failed: a scripted scenario replays notes only, not the model's GraphQL traffic")
        }
        var scenario = ReproducerBuilder.build(lines: lines, summary: summary, note: note, notes: &notes)
        scenario.name = Self.fileName(summary.scenario, note.name)
        var result = Simulation.run(scenario, seed: scenario.seed)
        let kinds = Set(evidence.map(EvidenceKind.of))
        var status: Status
        var diagnosis: FaultDiagnosis?
        if ScriptShrinker.fails(result, checker: checker, kinds: kinds) {
            status = .reproduced
        } else if ScriptShrinker.fails(result, checker: checker, kinds: []) {
            status = .otherEvidence
        } else {
            status = .notReproduced
            if let side = diagnose {
                let d = FaultDiagnosis.run(
                    scenario, live: summary, checker: checker, kinds: kinds, side: side,
                    liveApplies: liveApplies(lines: lines, note: note), deadline: diagnosisDeadline ?? deadline)
                diagnosis = d
                if let best = d.matches.first {
                    scenario.faults += best.faults.map(\.rawValue)
                    result = best.result
                    status = .reproduced
                }
            }
            if status == .notReproduced { notes += whyNot(lines: lines, note: note) }
        }
        let order = compareOrder(lines: lines, note: note, simulated: result.history)
        var shrunk: ScriptShrinker.Outcome?
        if shrink, status != .notReproduced {
            // Shrinking gets its whole budget after a diagnosis.
            shrunk = ScriptShrinker.shrink(
                scenario, result: result, checker: checker, kinds: status == .reproduced ? kinds : [],
                deadline: deadline.addingTimeInterval(diagnosis?.seconds ?? 0))
            if shrunk!.budgetSpent { notes.append("shrinking stopped at its time budget after \(shrunk!.runs) runs") }
        }
        return Reproduction(
            note: note, checker: checker, liveEvidence: evidence, scenario: scenario, result: result, status: status,
            serverOrder: order, shrunk: shrunk, notes: notes, diagnosis: diagnosis)
    }

    /// The ops the live server applied to `note`.
    static func liveApplies(lines: [NamedHistoryLine], note: LiveRecordSummary.Note) -> Int {
        lines.reduce(0) { $0 + ($1.type == "serverApply" && $1.document == note.name ? 1 : 0) }
    }

    /// A scenario name from the run's scenario and note (no spaces or slashes).
    static func fileName(_ scenario: String, _ note: String) -> String {
        let raw = "\(scenario)-\(note)-reproducer"
        return String(raw.map { $0.isWhitespace || $0 == "/" ? "-" : $0 })
    }

    /// Compares the clients whose ops the live and the simulated server applied, in order.
    static func compareOrder(lines: [NamedHistoryLine], note: LiveRecordSummary.Note, simulated: History) -> String {
        var live: [String] = []
        for line in lines where line.type == "serverApply" && line.document == note.name {
            if let c = line.clients.first, note.clients.contains(c) { live.append(c) }
        }
        let sim: [String] = simulated.entries.compactMap { e in
            if case .serverApply(0, let c, _, _, _) = e.event, c >= 0, c < note.clients.count {
                return note.clients[c]
            } else {
                return nil
            }
        }
        if live == sim { return "the same as live (\(live.count) ops)" }
        let k = zip(live, sim).prefix { $0 == $1 }.count
        return
            "differs from live at op \(k + 1) (live \(live.count) ops, simulated \(sim.count)): the simulated clients formed different ops"
    }

    /// What in the note's live history a script does not carry, as reasons a violation did not reproduce.
    static func whyNot(lines: [NamedHistoryLine], note: LiveRecordSummary.Note) -> [String] {
        var reasons: [String] = []
        if lines.contains(where: { $0.type == "serverCrash" || $0.type == "serverRestart" }) {
            reasons.append(
                "the server restarted during the run: the script replays the crash (and a power loss), but which writes the live storage had made durable when it died is not in the record"
            )
        }
        if lines.contains(where: { $0.type == "observation" && $0.document == note.name }) {
            reasons.append(
                "the record of \(note.name) has gaps or conflicts (observation events): the live server's history is not fully known"
            )
        }
        let resets = lines.filter { $0.type == "serverRevision" && $0.document == note.name }.compactMap {
            line -> String? in
            if case .serverRevision(_, _, _, let cause)? = line.event({ _ in 0 }, { _ in 0 }), cause == "history reset"
            {
                cause
            } else {
                nil
            }
        }
        if !resets.isEmpty {
            reasons.append(
                "the server reset \(note.name) when its last member left; when each client's join reached the server is not in the record, so in the script a client may still be a member then"
            )
        } else if lines.contains(where: { $0.type == "serverRevision" && $0.document == note.name }) {
            reasons.append(
                "\(note.name)'s server revision changed other than by an apply (serverRevision): a script replays clients and delivery, not the server's own state"
            )
        }
        if reasons.isEmpty {
            reasons.append(
                "the simulated clients, fed the same edits, delivery order and revisions, did not make the live run's ops (timing inside a millisecond, or something outside the note)"
            )
        }
        return reasons
    }
}
