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
public enum CursorChecker {
    public static func check(_ history: History) -> CheckResult {
        var evidence = Evidence()
        var log = AppliedLog(documents: history.documentNames.count)
        var baseline: [Int: (revision: Int, selection: Selection, time: SimTime)] = [:]
        var delivered: [Int: (revision: Int, selection: Selection, time: SimTime)] = [:]
        var lastConnect: [Int: SimTime] = [:]
        var observations = 0
        for entry in history.events {
            log.consume(entry, history: history)
            switch entry.event {
            case .connect(let c):
                lastConnect[c] = entry.time
            case .selectionSet(let c, let revision, let selection):
                baseline[c] = (revision, selection, entry.time)
            case .cursorDelivered(let c, let revision, let selection):
                delivered[c] = (revision, selection, entry.time)
            case .ownCursor(let c, let revision, let selection, let length):
                observations += 1
                let name = history.clientNames[c]
                if !inBounds(selection, length) {
                    evidence.invalid("t=\(entry.time) \(name)'s own selection \(show(selection)) is outside its text of \(length) scalars")
                    continue
                }
                guard let base = baseline[c] else { continue }
                let ops = log.live[history.clientDocuments[c]]
                guard let expected = move(base.selection, from: base.revision, to: revision, ops: ops, rule: { $0 == c ? .own : .remote }) else { continue }
                if expected != selection {
                    evidence.invalid("t=\(entry.time) \(name)'s own selection is \(show(selection)) at revision \(revision); the oracle says \(show(expected)) (set to \(show(base.selection)) at revision \(base.revision))")
                }
            case .remoteCursor(let o, let s, let revision, let observed, let length):
                observations += 1
                let observer = history.clientNames[o], subject = history.clientNames[s]
                if let observed, !inBounds(observed, length) {
                    evidence.invalid("t=\(entry.time) \(observer) shows \(subject)'s cursor at \(show(observed)), outside its text of \(length) scalars")
                    continue
                }
                guard history.protocolVersion >= 2, let sent = delivered[s], sent.time >= (lastConnect[s] ?? 0) else { continue }
                let ops = log.live[history.clientDocuments[o]]
                guard let expected = move(sent.selection, from: sent.revision, to: revision, ops: ops, rule: { $0 == s ? .own : .remote }) else { continue }
                if observed != expected {
                    evidence.invalid("t=\(entry.time) \(observer) shows \(subject)'s cursor at \(observed.map(show) ?? "nowhere") at revision \(revision); the oracle says \(show(expected)) (sent as \(show(sent.selection)) at revision \(sent.revision), moved with the own rule through \(subject)'s ops and the remote rule through the others')")
                }
            default: break
            }
        }
        return evidence.result(.cursors)
    }

    /// `selection` moved through the ops of revisions `from`+1 through `to`; nil when the log does
    /// not hold every one of them (a live observer's gap: the oracle cannot say, so nothing is judged).
    static func move(_ selection: Selection, from: Int, to: Int, ops: [AppliedLog.Entry], rule: (Int) -> CursorRule) -> Selection? {
        guard from >= 0, from <= to else { return nil }
        // Revisions are indexes + 1 unless the log has a gap: find the first op after `from`.
        var lo = 0, hi = ops.count
        if from < ops.count, ops[from].revision == from + 1 { lo = from } else {
            while lo < hi { let mid = (lo + hi) / 2; if ops[mid].revision <= from { lo = mid + 1 } else { hi = mid } }
        }
        let end = lo + (to - from)
        guard end <= ops.count, to == from || (ops[lo].revision == from + 1 && ops[end - 1].revision == to) else { return nil }
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
