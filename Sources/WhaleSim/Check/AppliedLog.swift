import WhaleOT

/// The server's history per document as the checkers see it, rebuilt from `serverApply` and
/// `serverRevision` events: a revision that goes back (restart, reset) drops the ops beyond it,
/// which are kept aside as `lost` (an acknowledged op there is a lost edit).
struct AppliedLog {
    struct Entry {
        var time: SimTime
        var client: Int
        var opId: String
        var op: Operation
    }
    struct Lost {
        var document: Int
        var entry: Entry
        var time: SimTime
        var cause: String
    }

    private(set) var live: [[Entry]]
    private(set) var lost: [Lost] = []
    /// Revision numbers that did not follow the log (an apply at a revision other than count + 1).
    private(set) var anomalies: [String] = []

    init(documents: Int) { live = Array(repeating: [], count: documents) }

    mutating func consume(_ entry: HistoryEntry, history: History) {
        switch entry.event {
        case .serverApply(let d, let c, let id, let op, let revision):
            if revision != live[d].count + 1 {
                anomalies.append("t=\(entry.time) \(history.documentNames[d]): op \(id) applied as revision \(revision) after \(live[d].count) ops")
            }
            live[d].append(Entry(time: entry.time, client: c, opId: id, op: op))
        case .serverRevision(let d, _, let to, let cause):
            if to < live[d].count {
                for dropped in live[d][max(to, 0)...] {
                    lost.append(Lost(document: d, entry: dropped, time: entry.time, cause: cause))
                }
                live[d].removeLast(live[d].count - max(to, 0))
            }
        default:
            break
        }
    }

    /// The log after every event of `history`.
    static func final(_ history: History) -> AppliedLog {
        var log = AppliedLog(documents: history.documentNames.count)
        for entry in history.entries { log.consume(entry, history: history) }
        return log
    }
}

extension Operation {
    /// The inserted text of the operation, in document order (what a user typed into it).
    var insertedText: String {
        var text = ""
        for case .insert(let s, _) in components { text += s }
        return text
    }
}

/// Where two texts first differ, as "scalar N: "…left…" vs "…right…"" for evidence lines.
func firstDifference(_ a: String, _ b: String) -> String {
    let x = Array(a.unicodeScalars), y = Array(b.unicodeScalars)
    var i = 0
    while i < x.count, i < y.count, x[i] == y[i] { i += 1 }
    func excerpt(_ s: [Unicode.Scalar]) -> String {
        let lo = max(0, i - 8), hi = min(s.count, i + 12)
        var v = String.UnicodeScalarView()
        v.append(contentsOf: s[lo..<hi])
        return String(reflecting: String(v))
    }
    return "lengths \(x.count) and \(y.count), first difference at scalar \(i): \(excerpt(x)) vs \(excerpt(y))"
}
