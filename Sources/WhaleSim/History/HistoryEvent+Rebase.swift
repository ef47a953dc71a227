/// Live runs against a server whose notes already have a history (a team's own server, or a
/// second run against the same `whalesim serve`) start each note at some revision `base` with
/// some text. The checkers count revisions from 1 over the ops they saw applied, so the live
/// recorder hands them revisions counted from the run's start: every revision of a note's
/// events less that note's `base`. A revision below the base (a client that never joined
/// still says 0) becomes 0.
extension HistoryEvent {
    /// The event with each revision it carries lowered by the base of its note. `document` maps a
    /// client index to its note; `base` a note to the revision it had when the run began.
    public func rebased(document: (Int) -> Int, base: (Int) -> Int) -> HistoryEvent {
        func r(_ revision: Int, client c: Int) -> Int { max(0, revision - base(document(c))) }
        func rd(_ revision: Int, _ d: Int) -> Int { max(0, revision - base(d)) }
        switch self {
        case .invoke(let c, let id, let op, let rev):
            return .invoke(client: c, opId: id, op: op, baseRevision: r(rev, client: c))
        case .send(let c, let id, let op, let rev):
            return .send(client: c, opId: id, op: op, revision: r(rev, client: c))
        case .ack(let c, let id, let rev): return .ack(client: c, opId: id, revision: r(rev, client: c))
        case .serverApply(let d, let c, let id, let op, let rev):
            return .serverApply(document: d, client: c, opId: id, op: op, revision: rd(rev, d))
        case .serverRevision(let d, let from, let to, let cause):
            return .serverRevision(document: d, from: rd(from, d), to: rd(to, d), cause: cause)
        case .observation(let d, let from, let to, let kind, let detail):
            return .observation(document: d, from: rd(from, d), to: rd(to, d), kind: kind, detail: detail)
        case .clientRevision(let c, let rev): return .clientRevision(client: c, revision: r(rev, client: c))
        case .cursorDelivered(let c, let rev, let s):
            return .cursorDelivered(client: c, revision: r(rev, client: c), selection: s)
        case .selectionSet(let c, let rev, let s):
            return .selectionSet(client: c, revision: r(rev, client: c), selection: s)
        case .ownCursor(let c, let rev, let s, let n):
            return .ownCursor(client: c, revision: r(rev, client: c), selection: s, textLength: n)
        case .remoteCursor(let o, let subject, let rev, let s, let n):
            return .remoteCursor(
                observer: o, subject: subject, revision: r(rev, client: o), selection: s, textLength: n)
        case .clientFinal(let c, let text, let rev, let pending, let connected):
            return .clientFinal(
                client: c, text: text, revision: r(rev, client: c), pendingOps: pending, connected: connected)
        case .serverFinal(let d, let text, let rev, let count):
            return .serverFinal(document: d, text: text, revision: rd(rev, d), historyCount: rd(count, d))
        case .edit, .failed, .error, .connect, .disconnect, .serverCrash, .serverRestart, .note, .heal, .quiescence,
            .traffic,
            .modelInvoke, .modelApply, .modelAck, .modelFailed, .modelClientFinal, .modelServerFinal, .modelServerState:
            return self
        }
    }
}
