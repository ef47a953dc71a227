import WhaleOT

/// Cursor correctness at every check point (`ownCursor` / `remoteCursor` observations):
///
/// - a client's own selection equals its last explicit selection (`selectionSet`) moved
///   through the server's ops since then, its own ops with ``CursorRule/own`` (it moves after
///   its own insert) and everyone else's with ``CursorRule/remote`` (it stays before text
///   inserted at it, like the Mac client's caret);
/// - protocol 2: a client's view of another's cursor equals that client's last `cursorUpdate`
///   the server received, moved through the server's ops since: that client's own ops with
///   ``CursorRule/own`` (the broadcast of its op carries its cursor moved so, ``AuthorCursor``)
///   and everyone else's with ``CursorRule/remote`` (PROTOCOL.md §3);
/// - every selection lies inside the text; directions are kept (compared exactly).
///
/// The oracle needs the ops from a baseline's revision to the check point's, and the log keeps only
/// a window (``AppliedLog``): so a baseline moves through each op as the op leaves the window, once
/// its client has reached that revision (a check point earlier than it could not use it any more).
/// A baseline left behind the window (its client was that far behind) is not judged, as a baseline
/// across a live observer's gap is not.
public enum CursorChecker {
    /// A selection the oracle moves from: where it was and at which revision.
    struct Baseline {
        var revision: Int
        var selection: Selection
        var time: SimTime
        /// The selection as set or sent, and its revision, before the oracle moved it (for evidence).
        var origin: (revision: Int, selection: Selection)

        init(revision: Int, selection: Selection, time: SimTime) {
            self.revision = revision
            self.selection = selection
            self.time = time
            origin = (revision, selection)
        }
    }

    public static func check(_ history: History) -> CheckResult {
        judge(history).result
    }

    /// The check, and the most it held at once. `windowSize`: ops kept per note (tests make it small).
    static func judge(_ history: History, windowSize: Int? = nil) -> (result: CheckResult, footprint: CheckFootprint) {
        var evidence = Evidence()
        var log = AppliedLog(documents: history.documentNames.count, windowSize: windowSize)
        let clients = history.documentNames.indices.map { history.clients(of: $0) }
        var baseline: [Baseline?] = Array(repeating: nil, count: history.clientNames.count)
        var delivered: [Baseline?] = Array(repeating: nil, count: history.clientNames.count)
        var reached: [Int] = Array(repeating: 0, count: history.clientNames.count)
        var lastConnect: [Int: SimTime] = [:]
        var observations = 0
        func advance(_ b: inout Baseline?, of c: Int, through e: AppliedLog.Entry) {
            guard let base = b, base.revision == e.revision - 1, reached[c] >= e.revision else { return }
            // A selection the op cannot move is not judged, as `move` does not.
            b = (try? e.op.transform(selection: base.selection, rule: e.client == c ? .own : .remote)).map { moved in
                var next = base
                next.revision = e.revision
                next.selection = moved
                return next
            }
        }
        func fold(_ change: AppliedLog.Change) {
            guard case .folded(let d, _, let e) = change else { return }
            for c in clients[d] {
                advance(&baseline[c], of: c, through: e)
                advance(&delivered[c], of: c, through: e)
            }
        }
        for entry in history.events {
            log.consume(entry, history: history, fold)
            switch entry.event {
            case .connect(let c):
                lastConnect[c] = entry.time
            case .clientRevision(let c, let revision):
                reached[c] = revision
            case .selectionSet(let c, let revision, let selection):
                baseline[c] = Baseline(revision: revision, selection: selection, time: entry.time)
            case .cursorDelivered(let c, let revision, let selection):
                delivered[c] = Baseline(revision: revision, selection: selection, time: entry.time)
            case .ownCursor(let c, let revision, let selection, let length):
                observations += 1
                let name = history.clientNames[c]
                if !inBounds(selection, length) {
                    evidence.invalid(
                        "t=\(entry.time) \(name)'s own selection \(show(selection)) is outside its text of \(length) scalars"
                    )
                    continue
                }
                guard let base = baseline[c] else { continue }
                let ops = log.live(history.clientDocuments[c])
                guard
                    let expected = move(
                        base.selection, from: base.revision, to: revision, ops: ops, rule: { $0 == c ? .own : .remote })
                else { continue }
                if expected != selection {
                    evidence.invalid(
                        "t=\(entry.time) \(name)'s own selection is \(show(selection)) at revision \(revision); the oracle says \(show(expected)) (set to \(show(base.origin.selection)) at revision \(base.origin.revision))"
                    )
                }
            case .remoteCursor(let o, let s, let revision, let observed, let length):
                observations += 1
                let observer = history.clientNames[o], subject = history.clientNames[s]
                if let observed, !inBounds(observed, length) {
                    evidence.invalid(
                        "t=\(entry.time) \(observer) shows \(subject)'s cursor at \(show(observed)), outside its text of \(length) scalars"
                    )
                    continue
                }
                guard history.protocolVersion >= 2, let sent = delivered[s], sent.time >= (lastConnect[s] ?? 0) else {
                    continue
                }
                let ops = log.live(history.clientDocuments[o])
                guard
                    let expected = move(
                        sent.selection, from: sent.revision, to: revision, ops: ops, rule: { $0 == s ? .own : .remote })
                else { continue }
                if observed != expected {
                    evidence.invalid(
                        "t=\(entry.time) \(observer) shows \(subject)'s cursor at \(observed.map(show) ?? "nowhere") at revision \(revision); the oracle says \(show(expected)) (sent as \(show(sent.origin.selection)) at revision \(sent.origin.revision), moved with the own rule through \(subject)'s ops and the remote rule through the others')"
                    )
                }
            default: break
            }
        }
        return (evidence.result(.cursors), CheckFootprint(windowEntries: log.peakEntries, opEntries: 0))
    }

    /// `selection` moved through the ops of revisions `from`+1 through `to`; nil when the ops (the
    /// log's window) do not hold every one of them (a live observer's gap, or a baseline behind the
    /// window: the oracle cannot say, so nothing is judged).
    static func move(
        _ selection: Selection, from: Int, to: Int, ops: ArraySlice<AppliedLog.Entry>, rule: (Int) -> CursorRule
    ) -> Selection? {
        guard from >= 0, from <= to else { return nil }
        // Revisions follow the window's places unless the log has a gap: find the first op after `from`.
        let first = ops.startIndex
        var lo = first, hi = ops.endIndex
        let guess = first + from - ((ops.first?.revision ?? 1) - 1)
        if guess >= first, guess < hi, ops[guess].revision == from + 1 {
            lo = guess
        } else {
            while lo < hi { let mid = (lo + hi) / 2; if ops[mid].revision <= from { lo = mid + 1 } else { hi = mid } }
        }
        let end = lo + (to - from)
        guard end <= ops.endIndex, to == from || (ops[lo].revision == from + 1 && ops[end - 1].revision == to) else {
            return nil
        }
        var s = selection
        for e in ops[lo..<end] {
            guard let moved = try? e.op.transform(selection: s, rule: rule(e.client)) else { return nil }
            s = moved
        }
        return s
    }

    static func inBounds(_ s: Selection, _ length: Int) -> Bool {
        s.anchor >= 0 && s.head >= 0 && s.anchor <= length && s.head <= length
    }

    static func show(_ s: Selection) -> String { s.isCollapsed ? "\(s.head)" : "\(s.anchor)→\(s.head)" }
}
