import Foundation
import WhaleOT
import WhaleProtocol
import WhaleSim

/// The phases after the load: heal and wait for quiescence, probe cursors, then read the
/// server's account of each note and record every final state.
extension LiveRun {
    /// What the final reads found, for the judge.
    struct Finals {
        /// Each note's history as the server accounts for it (``readAccounts(socketURL:token:)``).
        var accounts: [[ServerAccountOp]?]
        /// When the run ended (run clock, ms): after the final reads.
        var endMs: Int
    }

    /// Heals every fault and waits for quiescence (bounded shorter once interrupted); whether it came.
    func healAndQuiesce(recorder: LiveRecorder) async -> Bool {
        await healEverything()
        liveChecks.close()
        recorder.record(.heal)
        let healedAt = clock.nowMs
        let quiet = await waitQuiescent(timeoutMs: quiescenceBoundMs)
        if quiet { metrics.latency("converge", us: Int64(clock.nowMs - healedAt) * 1000) }
        recorder.record(.quiescence(reached: quiet, ticksAfterHeal: clock.nowMs - healedAt))
        if !quiet { note("not quiescent \(quiescenceBoundMs / 1000) s after healing: " + unquietReasons(limit: 6)) }
        return quiet
    }

    /// The cursor probe, when the scenario checks cursors and the run is quiet and not interrupted.
    func probeCursorsIfChecked(quiet: Bool, recorder: LiveRecorder) async {
        if quiet, interrupted == nil, scenario.checkers.contains(.cursors) { await probeCursors(recorder: recorder) }
    }

    /// The server's account of each note, every final state, the traffic; then the run's end.
    func recordFinalStates(recorder: LiveRecorder, socketURL: String, token: String) async -> Finals {
        let accounts = await readAccounts(socketURL: socketURL, token: token)
        await recordFinals(recorder: recorder, socketURL: socketURL, token: token)
        recorder.record(.traffic(messages: recorder.messages, edits: recorder.edits, clients: recorder.clientCount))
        let endMs = clock.nowMs
        let drops = recorders.map(\.staleDrops).reduce(0, +)
        if drops > 0 {
            note(
                "the recorders' watchdog dropped \(drops) silent socket\(drops == 1 ? "" : "s") (a join or a ping unanswered for \(DocumentRecorder.deadAfterMs / 1000) s) and dialed again"
            )
        }
        return Finals(accounts: accounts, endMs: endMs)
    }

    /// The simulator's cursor probe on real sockets: everyone sets a selection (most collapsed at
    /// one spot per note), the run goes quiet, the first client of each note and every fourth
    /// one type at that spot, it goes quiet again, and every own and remote cursor is recorded.
    private func probeCursors(recorder: LiveRecorder) async {
        var rng = SimRandom(seed: options.seed).derive(0xC0FFEE)
        let sessions = users.withLockedValue { $0 }.compactMap(\.noteSession)
        var spot: [Int: Int] = [:]
        for n in sessions where spot[n.document] == nil { spot[n.document] = rng.int(in: 0...n.session.document.count) }
        for n in sessions {
            let len = n.session.document.count
            let at = min(spot[n.document]!, len)
            var selection = Selection(cursor: at)
            if n.index % 3 == 2 {
                let other = rng.int(in: 0...len)
                selection = rng.chance(0.5) ? Selection(anchor: at, head: other) : Selection(anchor: other, head: at)
            }
            n.select(selection, record: true)
        }
        guard await waitQuiescent(timeoutMs: spec.quiescenceMs) else { return }
        // A shard does not type here: the others may have recorded their final texts already.
        var first: Set<Int> = options.shard == nil ? [] : Set(sessions.map(\.document))
        for n in sessions {
            let typist = first.insert(n.document).inserted || (options.shard == nil && n.index % 4 == 3)
            if typist, n.session.selection.isCollapsed {
                n.edit(
                    position: n.session.selection.head, deleting: 0,
                    inserting: TextGenerator(alphabet: scenario.alphabet).snippet(rng.int(in: 1...2), using: &rng))
            }
        }
        guard await waitQuiescent(timeoutMs: spec.quiescenceMs) else { return }
        for n in sessions {
            let others = sessions.filter { $0.document == n.document }.map { ($0.index, ClientID($0.connectionId)) }
            n.recordCursors(others: others)
        }
        cursorsProbed = true
    }

    /// The server's final text of each note, read by a fresh join; then every client's state.
    private func recordFinals(recorder: LiveRecorder, socketURL: String, token: String) async {
        for (d, r) in recorders.enumerated() {
            if let state = await ProbeJoin.read(socketURL: socketURL, resourceId: r.resourceId, token: token) {
                recorder.record(
                    .serverFinal(document: d, text: state.text, revision: state.revision, historyCount: state.revision))
            } else {
                note("could not read the final state of \(r.resourceId); the recorder's copy stands in")
                recorder.record(.serverFinal(document: d, text: r.text, revision: r.revision, historyCount: r.revision))
            }
            for gap in r.gaps { note(gap) }
        }
        for u in users.withLockedValue({ $0 }) { u.noteSession?.recordFinal() }
        await recordModelFinals(recorder: recorder, token: token)
    }

    /// Every model page as its user sees it and as the server answers that user's fetch now,
    /// then the organization's records (the model checker's final state).
    private func recordModelFinals(recorder: LiveRecorder, token: String) async {
        guard let context, context.modelSpec != nil else { return }
        for u in users.withLockedValue({ $0 }) {
            guard let m = u.modelPage, let t = u.accessToken else { continue }
            let accountID: String? = if case .account(let id) = m.page { id } else { nil }
            do {
                let snapshot = try await context.whaler.page(accountID: accountID, token: t)
                m.recordFinal(serverRecords: snapshot.shown.map(\.line))
            } catch {
                note("could not read \(u.name)'s \(m.page.name) from the server: \(error)")
                m.recordFinal(serverRecords: nil)
            }
        }
        do {
            recorder.record(.modelServerState(records: try await context.whaler.modelState(token: token).sorted()))
        } catch {
            note("could not read the model's final state: \(error)")
        }
    }

    /// Each note's history as the server itself accounts for it, read after quiescence by a
    /// protocol-2 resync from the note's baseline; nil for a note whose account could not be
    /// had (a server without resync answers with its full state only).
    private func readAccounts(socketURL: String, token: String) async -> [[ServerAccountOp]?] {
        var out: [[ServerAccountOp]?] = []
        for r in recorders {
            guard let base = r.baseline,
                let ops = await ProbeJoin.account(
                    socketURL: socketURL, resourceId: r.resourceId, token: token, fromRevision: base)
            else {
                out.append(nil)
                continue
            }
            let registry = context?.ops
            out.append(
                ops.map {
                    ServerAccountOp(
                        opId: $0.opId ?? "", client: $0.opId.flatMap { registry?.op($0)?.client } ?? -1, op: $0.op)
                })
        }
        return out
    }

    /// The recorded history checked against each note's account (``History/reconciled``): what the
    /// recorders missed is taken from it, what they saw differently is a conflict. Notes say what
    /// came from where; a note without an account keeps its gaps (the checkers say unknown).
    func reconcile(_ history: History, accounts: [[ServerAccountOp]?]) -> History {
        var given: [(document: Int, account: [ServerAccountOp])] = []
        for (d, account) in accounts.enumerated() {
            guard let account else {
                note(
                    "\(history.documentNames[d]): the server gave no account of its history (no protocol-2 resync); revisions the recorder missed stay unobserved"
                )
                continue
            }
            given.append((d, account))
        }
        let (h, said) = history.reconciled(
            accounts: given, readAt: clock.nowMs,
            source: { "the server's resync from revision \(self.recorders[$0].baseline ?? 0) after quiescence" })
        for line in said { note(line) }
        return h
    }
}
