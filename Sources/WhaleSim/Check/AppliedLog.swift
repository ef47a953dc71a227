import WhaleOT

/// The server's history per document as the checkers see it, rebuilt from `serverApply` and
/// `serverRevision` events: a revision that goes back (restart, reset) drops the ops beyond it,
/// which are kept aside as `lost` (an acknowledged op there is a lost edit).
///
/// A live observer can miss revisions (`observation` gaps: its socket was down and the server
/// offered no account of them). The log then holds the revisions it saw, numbered as the server
/// numbered them, and ``unobserved(_:serverRevision:)`` says what is missing, so a checker says
/// `unknown` instead of judging an edit lost from a hole in its own records.
struct AppliedLog {
    struct Entry {
        var time: SimTime
        var client: Int
        var opId: String
        var op: Operation
        var revision: Int
    }
    struct Lost {
        var document: Int
        var entry: Entry
        var time: SimTime
        var cause: String
    }

    private(set) var live: [[Entry]]
    private(set) var lost: [Lost] = []
    /// Revision numbers that did not follow the log (an apply at a revision other than the next).
    private(set) var anomalies: [String] = []
    /// Per document, the stretches the observer missed with no account to fill them.
    private(set) var gaps: [[String]]
    /// Revisions at which the server's broadcast and its own account disagree.
    private(set) var conflicts: [String] = []
    /// The revision each document's next apply must carry.
    private var next: [Int]

    init(documents: Int) {
        live = Array(repeating: [], count: documents)
        gaps = Array(repeating: [], count: documents)
        next = Array(repeating: 1, count: documents)
    }

    mutating func consume(_ entry: HistoryEntry, history: History) {
        switch entry.event {
        case .serverApply(let d, let c, let id, let op, let revision):
            if revision != next[d] {
                anomalies.append("t=\(entry.time) \(history.documentNames[d]): op \(id) applied as revision \(revision) after \(next[d] - 1)")
            }
            live[d].append(Entry(time: entry.time, client: c, opId: id, op: op, revision: revision))
            next[d] = revision + 1
        case .serverRevision(let d, _, let to, let cause):
            if to < next[d] - 1 {
                let keep = live[d].firstIndex { $0.revision > max(to, 0) } ?? live[d].count
                for dropped in live[d][keep...] {
                    lost.append(Lost(document: d, entry: dropped, time: entry.time, cause: cause))
                }
                live[d].removeLast(live[d].count - keep)
                next[d] = max(to, 0) + 1
            }
        case .observation(let d, let from, let to, let kind, let detail):
            let name = history.documentNames[d]
            switch kind {
            case .gap:
                gaps[d].append("revisions \(from + 1)–\(to) not observed (\(detail))")
                if to >= next[d] { next[d] = to + 1 }
            case .conflict:
                conflicts.append("t=\(entry.time) \(name) revision \(from + 1): \(detail)")
            case .filled:
                break
            }
        default:
            break
        }
    }

    /// What the record misses of document `d`'s server history, or nil when it holds every
    /// revision up to the last it saw and to the server's final revision.
    func unobserved(_ d: Int, serverRevision: Int?) -> String? {
        let top = max(next[d] - 1, serverRevision ?? 0)
        let missing = top - live[d].count
        guard missing > 0 else { return nil }
        let why = gaps[d].isEmpty ? "" : ": " + gaps[d].prefix(3).joined(separator: "; ") + (gaps[d].count > 3 ? "; …" : "")
        return "the record holds \(live[d].count) of \(top) server revisions of this note\(why)"
    }

    /// The log after every event of `history`.
    static func final(_ history: History) -> AppliedLog {
        var log = AppliedLog(documents: history.documentNames.count)
        for entry in history.events { log.consume(entry, history: history) }
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
