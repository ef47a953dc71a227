import WhaleOT

/// One op of a note's history as the server itself accounts for it (a protocol-2 resync from
/// the run's baseline after quiescence): its op id (empty when the server gave none: then only
/// the op is compared), its author's history index (-1 unknown) and the op as the server holds it.
public struct ServerAccountOp: Hashable, Sendable {
    public var opId: String
    public var client: Int
    public var op: Operation
    public init(opId: String, client: Int, op: Operation) {
        self.opId = opId
        self.client = client
        self.op = op
    }
}

extension History {
    /// The history with document `d`'s server log checked against the server's own account of
    /// it (`account[i]` is revision i + 1, counted from the run's baseline), so that a gap in what
    /// the live observer saw is never judged as the server's fault:
    ///
    /// - a revision the observer did not see is taken from the account (a `filled` observation
    ///   names the source), placed before the next revision it did see, or at `readAt`;
    /// - a gap the account covers is no longer a gap;
    /// - a revision whose broadcast differs from the account is a `conflict` (the revisions
    ///   checker says invalid, naming what each source said) and the account's op stands;
    /// - an account that ends before the revisions the server broadcast is the server going back
    ///   (`serverRevision`): the ops beyond it are lost, and an acknowledged one is a lost edit.
    ///
    /// Returns the new history and one line per document for the run's notes (none when the
    /// record and the account agree and nothing was missing).
    public func reconciled(document d: Int, account: [ServerAccountOp], readAt: SimTime, source: String) -> (
        History, String?
    ) {
        let (history, said) = reconciled(accounts: [(d, account)], readAt: readAt, source: { _ in source })
        return (history, said.first)
    }

    /// ``reconciled(document:account:readAt:source:)`` for several documents at once: one pass
    /// over the entries to read every document's log and one to write the new history (a live
    /// run's packed history of millions of entries is read twice, not twice per note). Returns
    /// one line per document that changed, in the order given.
    public func reconciled(
        accounts: [(document: Int, account: [ServerAccountOp])], readAt: SimTime,
        source: (Int) -> String
    ) -> (History, [String]) {
        typealias Apply = (revision: Int, index: Int, client: Int, opId: String, op: Operation, time: SimTime)
        // One pass in order (a packed history is not indexed): each apply keeps what the
        // comparison with the account needs, and where `readAt` falls is noted on the way.
        let wanted = Set(accounts.map(\.document))
        var live: [Int: [Apply]] = [:]
        var gapEvents: [Int: [(index: Int, to: Int)]] = [:]
        var total = 0
        var tailAt: Int?
        for (i, entry) in events.enumerated() {
            total += 1
            if tailAt == nil, entry.time > readAt { tailAt = i }
            switch entry.event {
            case .serverApply(let doc, let c, let id, let op, let revision) where wanted.contains(doc):
                live[doc, default: []].append((revision, i, c, id, op, entry.time))
            case .serverRevision(let doc, _, let to, _) where wanted.contains(doc):
                if let keep = live[doc]?.firstIndex(where: { $0.revision > max(to, 0) }) {
                    live[doc]!.removeLast(live[doc]!.count - keep)
                }
            case .observation(let doc, _, let to, .gap, _) where wanted.contains(doc):
                gapEvents[doc, default: []].append((i, to))
            default:
                break
            }
        }
        var before: [Int: [HistoryEvent]] = [:]  // events to put in front of entry i
        var tail: [HistoryEvent] = []
        var replace: [Int: HistoryEvent] = [:]
        var drop: Set<Int> = []
        var lines: [String] = []
        for (d, account) in accounts {
            let source = source(d)
            let live = live[d] ?? []
            let name = documentNames[d]
            var seen: [Int: Apply] = [:]
            for l in live { seen[l.revision] = l }
            let top = max(live.last?.revision ?? 0, account.count)
            let dropHere = Set((gapEvents[d] ?? []).filter { $0.to <= account.count }.map(\.index))
            var filled = 0, conflicts = 0
            func apply(_ r: Int) -> HistoryEvent {
                let a = account[r - 1]
                return .serverApply(
                    document: d, client: max(a.client, 0), opId: a.opId.isEmpty ? "unattributed-r\(r)" : a.opId,
                    op: a.op, revision: r)
            }
            var r = 1
            while r <= top {
                if let l = seen[r] {
                    guard r <= account.count else { break }
                    if l.op != account[r - 1].op || (!account[r - 1].opId.isEmpty && l.opId != account[r - 1].opId) {
                        conflicts += 1
                        let a = account[r - 1]
                        func who(_ c: Int) -> String { c >= 0 && c < clientNames.count ? clientNames[c] : "?" }
                        let detail =
                            "the server broadcast \(l.opId) (\(who(l.client))) \(l.op.compactDescription) as this revision at t=\(l.time); its own account (\(source)) holds \(a.opId) (\(who(a.client))) \(a.op.compactDescription)"
                        replace[l.index] = apply(r)
                        before[l.index, default: []].append(
                            .observation(document: d, from: r - 1, to: r, kind: .conflict, detail: detail))
                    }
                    r += 1
                    continue
                }
                // A run of revisions the observer missed: up to the next one it saw, or the account's end.
                var end = r
                while end < account.count, seen[end + 1] == nil { end += 1 }
                guard r <= account.count else { break }
                filled += end - r + 1
                let anchor = seen[end + 1]?.index
                let run =
                    [
                        HistoryEvent.observation(
                            document: d, from: r - 1, to: end, kind: .filled,
                            detail: "not observed live; taken from \(source)")
                    ] + (r...end).map(apply)
                if let anchor { before[anchor, default: []] += run } else { tail += run }
                r = end + 1
            }
            var wentBack = false
            if let last = live.last?.revision, last > account.count {
                wentBack = true
                tail.append(
                    .serverRevision(
                        document: d, from: last, to: account.count,
                        cause:
                            "the server's own account (\(source)) ends at revision \(account.count), though it broadcast revisions up to \(last)"
                    ))
            }
            drop.formUnion(dropHere)
            guard filled > 0 || conflicts > 0 || wentBack || !dropHere.isEmpty else { continue }
            var said: [String] = []
            if filled > 0 {
                said.append("\(filled) revision\(filled == 1 ? "" : "s") not observed live were taken from \(source)")
            }
            if conflicts > 0 {
                said.append(
                    "\(conflicts) revision\(conflicts == 1 ? "" : "s") broadcast differently from the server's own account (a conflict)"
                )
            }
            if wentBack {
                said.append(
                    "the server's own account ends at revision \(account.count), before revision \(live.last!.revision) it broadcast"
                )
            }
            lines.append("\(name): " + said.joined(separator: "; "))
        }
        guard !before.isEmpty || !tail.isEmpty || !replace.isEmpty || !drop.isEmpty else { return (self, lines) }

        var out = emptyCopy()
        // Tail events go where `readAt` falls (entries are in time order), so times stay monotonic.
        let tailIndex = tailAt ?? total
        for (i, entry) in events.enumerated() {
            if i == tailIndex { for e in tail { out.append(e, at: readAt) } }
            for e in before[i] ?? [] { out.append(e, at: entry.time) }
            if drop.contains(i) { continue }
            out.append(replace[i] ?? entry.event, at: entry.time)
        }
        if tailIndex == total { for e in tail { out.append(e, at: readAt) } }
        return (out, lines)
    }
}
