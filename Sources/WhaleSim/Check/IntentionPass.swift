import WhaleOT

/// What the intention checker keeps of one op while it is in flight.
struct IntentionOp {
    /// The client that invoked it, when, and its place among every invoke.
    var invoked: (client: Int, time: SimTime, order: Int)?
    /// The op as invoked, until it is sent (a finding names what an unsent op would have done).
    var invokedOp: Operation?
    /// The first sender and the op it last sent (a resend may be rebased).
    var sent: (client: Int, op: Operation, time: SimTime)?
    /// The highest revision it was sent against.
    var sentRevision: Int?
    var acked: (time: SimTime, client: Int)?
    var failed: String?
    /// The revision it was applied as, once its apply left the window.
    var applied: Int?
    var appliedIn: Int?
    /// Where a revision that went back dropped its apply (`order`: the loss's place in the run).
    var lost: [(document: Int, time: SimTime, cause: String, order: Int)] = []
    /// Scalars its user's edits deleted (``DeleteAllowance``).
    var allowed: Int?

    /// Acknowledged and judged: nothing at the end needs it any more.
    var closed: Bool { acked != nil && applied != nil && failed == nil }
}

/// The intention checker's state while it reads a history.
struct IntentionPass {
    let history: History
    private(set) var footprint = CheckFootprint()
    private var evidence = Evidence()
    private var log: AppliedLog
    private var ops: [String: IntentionOp] = [:]
    private var widths: DeleteAllowance
    private var invokes = 0
    private var losses = 0
    private var serverText: [Int: String] = [:]
    private var serverRevision: [Int: Int] = [:]
    private var quiescent = false
    /// Per note: the shadow at the window's start, whether it stopped spanning the ops.
    private var shadows: [ShadowText]
    private var shadowBroken: [Bool]
    /// Per note: the op ids of the last window of folded ops (applied-twice and evidence names).
    private var recent: [RecentOps]
    /// Per note, lines found while folding before the end: those that need the whole history
    /// (`complete`) are kept back until the end says whether the record holds it.
    private var always: [Evidence]
    private var complete: [Evidence]
    /// At the end, whether each note's record is complete (nil while the run is read).
    private var completeAtEnd: [Bool]?

    init(history: History, windowSize: Int?) {
        self.history = history
        let n = history.documentNames.count
        log = AppliedLog(documents: n, windowSize: windowSize)
        widths = DeleteAllowance(clients: history.clientNames.count)
        shadows = history.initialTexts.map(ShadowText.init(initial:))
        shadowBroken = Array(repeating: false, count: n)
        recent = Array(repeating: RecentOps(capacity: log.windowSize), count: n)
        always = Array(repeating: Evidence(), count: n)
        complete = Array(repeating: Evidence(), count: n)
    }

    mutating func consume(_ entry: HistoryEntry) {
        switch entry.event {
        case .edit(let c, _, let deleted, _):
            settle(widths.edit(client: c, deleted: deleted))
        case .invoke(let c, let id, let op, _):
            ops[id, default: IntentionOp()].invoked = (c, entry.time, invokes)
            ops[id]!.invokedOp = ops[id]!.sent == nil ? op : nil
            invokes += 1
            settle(widths.invoke(client: c, opId: id))
        case .send(let c, let id, let op, let revision):
            var state = ops[id] ?? IntentionOp()
            if state.sent == nil { state.sent = (c, op, entry.time) }
            state.sent?.op = op
            state.invokedOp = nil
            state.sentRevision = max(state.sentRevision ?? 0, revision)
            ops[id] = state
        case .ack(let c, let id, _):
            if ops[id] == nil, recent[history.clientDocuments[c]].revision(of: id) != nil {
                break  // a second acknowledgement of an op already judged and let go (the revision checker's)
            }
            if ops[id, default: IntentionOp()].acked == nil { ops[id]!.acked = (entry.time, c) }
            release(id)
        case .failed(let c, let id, let code):
            if ops[id] == nil, let revision = recent[history.clientDocuments[c]].revision(of: id) {
                ops[id] = IntentionOp(applied: revision, appliedIn: history.clientDocuments[c])
            }
            ops[id, default: IntentionOp()].failed = code
        case .serverFinal(let d, let text, let revision, _):
            serverText[d] = text
            serverRevision[d] = revision
        case .quiescence(let reached, _):
            quiescent = reached
        default:
            break
        }
        var changes: [AppliedLog.Change] = []
        log.consume(entry, history: history) { changes.append($0) }
        for change in changes { apply(change) }
        footprint.see(windowEntries: log.peakEntries, opEntries: ops.count)
    }

    private mutating func settle(_ settled: (opId: String, deleted: Int)?) {
        guard let (id, n) = settled, ops[id] != nil else { return }
        ops[id]!.allowed = (ops[id]!.allowed ?? 0) + n
    }

    /// Lets an op go once nothing ahead needs it.
    private mutating func release(_ id: String) {
        if ops[id]?.closed == true { ops[id] = nil }
    }

    private mutating func apply(_ change: AppliedLog.Change) {
        switch change {
        case .lost(let lost):
            ops[lost.entry.opId, default: IntentionOp()].lost.append((lost.document, lost.time, lost.cause, losses))
            losses += 1
        case .folded(let d, let ordinal, let e):
            fold(d, ordinal, e)
        case .forgot(let d, let to, let time, let cause):
            // The note went back past the window: the ops it folded beyond `to` were undone. Those
            // still held are lost like any dropped op; those let go cannot be named (the note is unknown).
            recent[d] = RecentOps(capacity: log.windowSize)
            for (id, op) in ops.sorted(by: { $0.key < $1.key })
            where op.applied != nil && op.appliedIn == d && op.applied! > to {
                ops[id]!.applied = nil
                ops[id]!.lost.append((d, time, cause, losses))
                losses += 1
            }
        }
    }

    /// The per-op checks on an op leaving the window of note `d`, and the shadow moved past it.
    private mutating func fold(_ d: Int, _ ordinal: Int, _ e: AppliedLog.Entry) {
        let note = history.documentNames[d]
        let known = completeAtEnd?[d]
        var lines = Evidence(), shadowLines = Evidence()
        let state = ops[e.opId]
        if let first = state?.applied ?? recent[d].revision(of: e.opId) {
            lines.invalid(
                "\(e.opId) applied twice on \(note) (revisions \(first) and \(e.revision)): its text \(String(reflecting: e.op.insertedText)) is doubled"
            )
        } else {
            ops[e.opId]?.applied = e.revision
            ops[e.opId]?.appliedIn = d
        }
        if let origin = state?.sent {
            let typed = origin.op.insertedText, applied = e.op.insertedText
            if typed != applied {
                lines.invalid(
                    "\(e.opId): the server inserted \(String(reflecting: applied)) but \(history.clientNames[origin.client]) sent \(String(reflecting: typed))"
                )
            }
        } else {
            lines.invalid("revision \(e.revision) of \(note) applies \(e.opId), which no client sent")
        }
        if known != false, !shadowBroken[d], !log.beyondWindow[d] {
            var deleted: [(id: Int64, scalar: Unicode.Scalar)] = []
            if !shadows[d].apply(
                e.op, identity: ShadowText.identity(ordinal: ordinal, client: e.client), deleted: &deleted)
            {
                shadowLines.invalid(
                    "\(note) revision \(ordinal + 1) (\(e.opId)) does not span the shadow text (\(e.op.baseLength) vs \(shadows[d].count) scalars)"
                )
                shadowBroken[d] = true
            } else {
                let author = state?.sent?.client ?? e.client
                let sentRevision = state?.sentRevision ?? 0
                let where_ = "\(e.opId) (\(history.clientNames[author]), revision \(ordinal + 1) of \(note))"
                let unseen = deleted.filter { item in
                    guard item.id >= 0 else { return false }  // the initial text: every client saw it
                    let (j, client) = ShadowText.origin(item.id)
                    return client != author && j >= sentRevision
                }
                if !unseen.isEmpty {
                    let names = Set(
                        unseen.map { item -> String in
                            let (j, client) = ShadowText.origin(item.id)
                            return recent[d].opId(ordinal: j) ?? "revision \(j + 1) (\(history.clientNames[client]))"
                        }
                    ).sorted()
                    shadowLines.invalid(
                        "\(where_) deleted \(String(reflecting: scalarsText(unseen.map(\.scalar)))), inserted by \(names.joined(separator: ", ")) after revision \(sentRevision), which its author had not seen"
                    )
                }
                let allowed = state?.allowed.map {
                    $0 + (state?.invoked.map { widths.waiting(for: e.opId, client: $0.client) } ?? 0)
                }
                if let allowed, deleted.count > allowed {
                    shadowLines.invalid(
                        "\(where_) deleted \(deleted.count) scalars \(String(reflecting: scalarsText(deleted.map(\.scalar)))) but its user's edits deleted \(allowed): a too-wide delete"
                    )
                }
            }
        }
        recent[d].append(opId: e.opId, ordinal: ordinal, revision: e.revision)
        release(e.opId)
        if known == nil {
            // Read mid-run: whether the shadow's lines count depends on the end (a gap in the record).
            always[d].absorb(lines)
            complete[d].absorb(shadowLines)
        } else {
            // The end, note by note in log order: the lines in the order they were found.
            evidence.absorb(lines)
            evidence.absorb(shadowLines)
        }
    }

    /// What the ops folded so far showed that the end cannot take back (``CheckSoFar``): the
    /// per-op lines that do not depend on the record being complete.
    func soFar() -> Evidence {
        var found = Evidence()
        for lines in always { found.absorb(lines) }
        return found
    }

    mutating func finish() -> CheckResult {
        for settled in widths.finish() { settle(settled) }
        let names = history.documentNames
        // A live observer's gap: what it did not see cannot be replayed, so it is not judged.
        let unobserved = names.indices.map { log.unobserved($0, serverRevision: serverRevision[$0]) }
        completeAtEnd = unobserved.map { $0 == nil }
        for d in names.indices {
            if let why = unobserved[d] { evidence.unknown("\(names[d]): \(why); its text is not replayed") }
            evidence.absorb(always[d])
            if unobserved[d] == nil { evidence.absorb(complete[d]) }
            var changes: [AppliedLog.Change] = []
            log.foldAll(d) { changes.append($0) }
            for change in changes { apply(change) }
            if unobserved[d] == nil, let text = serverText[d], shadows[d].text != text {
                evidence.invalid(
                    "\(names[d]): the server's text holds characters its applied ops do not explain: \(firstDifference(text, shadows[d].text))"
                )
            }
        }
        footprint.see(windowEntries: log.peakEntries, opEntries: ops.count)
        let left = ops.sorted { $0.key < $1.key }
        var lostLines: [(order: Int, line: String)] = []
        for (id, op) in left where op.applied == nil {
            guard let acked = op.acked else { continue }
            for lost in op.lost {
                lostLines.append(
                    (
                        lost.order,
                        "\(id) was acknowledged at t=\(acked.time) but dropped from \(names[lost.document]) at t=\(lost.time) (\(lost.cause)): an acknowledged edit was lost"
                    ))
            }
        }
        for line in lostLines.sorted(by: { $0.order < $1.order }) { evidence.invalid(line.line) }
        for (id, op) in left where op.applied == nil && op.lost.isEmpty {
            guard let acked = op.acked else { continue }
            let d = history.clientDocuments[acked.client]
            if unobserved[d] != nil {
                evidence.unknown(
                    "\(id) was acknowledged at t=\(acked.time) and is not among the observed revisions of \(names[d]), whose record is incomplete: whether it was lost is unknown"
                )
                continue
            }
            evidence.invalid(
                "\(id) was acknowledged at t=\(acked.time) but is not in the server's history: an acknowledged edit was lost"
            )
        }
        let invoked = left.compactMap { id, op in
            op.invoked.map { (id: id, op: op, client: $0.client, time: $0.time, order: $0.order) }
        }
        .sorted { $0.order < $1.order }
        if history.protocolVersion < 2 {
            // The original protocol has no resync: a reconnect throws pending edits away. Say which.
            for (id, op) in left {
                guard let code = op.failed else { continue }
                let sent = op.sent?.op ?? op.invokedOp
                let client = op.invoked.map { history.clientNames[$0.client] } ?? "?"
                evidence.finding(
                    "\(id) (\(client)) was lost (\(code)): inserted \(String(reflecting: sent?.insertedText ?? "")), deleted \(sent?.deletedCount ?? 0) scalars; the original protocol throws unacknowledged edits away on reconnect"
                )
            }
            if quiescent {
                for op in invoked where op.op.acked == nil && op.op.failed == nil && op.op.applied == nil {
                    evidence.finding(
                        "\(op.id) (\(history.clientNames[op.client]), invoked at t=\(op.time)) was never acknowledged: the edit was lost without a word"
                    )
                }
            }
        } else {
            for (id, op) in left {
                guard let code = op.failed else { continue }
                // A client may give up on an op the server had already applied (its ack lost with
                // a socket, then its resend refused): the edit is in the server's history, not lost.
                if let revision = op.applied {
                    evidence.finding(
                        "\(id) was abandoned by its client (\(code)) although the server had applied it as revision \(revision): the edit was kept, the client gave it up for nothing"
                    )
                    continue
                }
                evidence.invalid("\(id) was abandoned (\(code)): the user's edit was lost")
            }
            if quiescent {
                for op in invoked where op.op.acked == nil && op.op.failed == nil {
                    evidence.invalid(
                        "\(op.id) (\(history.clientNames[op.client]), invoked at t=\(op.time)) was never acknowledged after healing: the edit was lost"
                    )
                }
            }
        }
        return evidence.result(.intention)
    }
}
