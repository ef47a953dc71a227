import WhaleOT

/// The server's history per document as the checkers see it, rebuilt from `serverApply` and
/// `serverRevision` events, kept as a window: the last ``windowSize`` ops of each document, the
/// older ones folded away. A checker that needs every op (a replay, the intention checker's shadow)
/// keeps its own checkpoint and is handed each op as it leaves the window (``Change/folded``), so
/// what it holds is bounded by the notes' texts and the window, not by the length of the run.
///
/// A revision that goes back (restart, reset) drops the ops beyond it (``Change/lost``: an
/// acknowledged op there is a lost edit). One that goes back past the window cannot be followed:
/// what was folded cannot be un-applied, so the document is marked as not fully known
/// (``unobserved(_:serverRevision:)`` says why) and the checkers say `unknown` about it, never
/// `invalid`.
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
    /// What a consumed event did to the log, for the checker that keeps more than the window.
    enum Change {
        /// `entry`, number `ordinal` (0-based) of document `document`'s log, left the window.
        case folded(document: Int, ordinal: Int, entry: Entry)
        /// A revision that went back dropped `lost` from the window.
        case lost(Lost)
        /// Document `document`'s revision went back to `to`, past the window: the folded ops
        /// beyond `to` were undone on the server, and the log no longer holds them.
        case forgot(document: Int, to: Int, time: SimTime, cause: String)
    }

    /// Ops kept per document before the oldest is folded: a budget of ``windowBudget`` entries
    /// shared by the notes, at least 256 a note. An entry costs about 300 bytes (the op, its id),
    /// so the budget is about 8 MB whatever the run's length
    /// (docs/decisions/0032-checkers-with-bounded-memory.md).
    static func windowSize(documents: Int) -> Int { max(256, windowBudget / max(documents, 1)) }
    static let windowBudget = 25_600

    let windowSize: Int
    /// Per document, the ops not yet folded, oldest first (from `start`).
    private var window: [[Entry]]
    private var start: [Int]
    /// Per document, how many ops were folded: the ordinal of the window's first entry.
    private(set) var folded: [Int]
    /// Revision numbers that did not follow the log (an apply at a revision other than the next).
    private(set) var anomalies: [String] = []
    /// Per document, the stretches the observer missed with no account to fill them, and the
    /// revisions that went back past the window.
    private(set) var gaps: [[String]]
    /// Per document, whether a revision went back past the window (the folded ops are not all live).
    private(set) var beyondWindow: [Bool]
    /// Revisions at which the server's broadcast and its own account disagree.
    private(set) var conflicts: [String] = []
    /// The revision each document's next apply must carry.
    private var next: [Int]
    private var lastFolded: [Int]
    /// The most window entries held at once, over every document (for tests of the bound).
    private(set) var peakEntries = 0
    private var entries = 0

    init(documents: Int, windowSize: Int? = nil) {
        self.windowSize = max(1, windowSize ?? Self.windowSize(documents: documents))
        window = Array(repeating: [], count: documents)
        start = Array(repeating: 0, count: documents)
        folded = Array(repeating: 0, count: documents)
        gaps = Array(repeating: [], count: documents)
        beyondWindow = Array(repeating: false, count: documents)
        next = Array(repeating: 1, count: documents)
        lastFolded = Array(repeating: 0, count: documents)
    }

    /// The window of document `d`, oldest first.
    func live(_ d: Int) -> ArraySlice<Entry> { window[d][start[d]...] }

    /// How many ops document `d`'s log holds, folded or in the window.
    func count(_ d: Int) -> Int { folded[d] + window[d].count - start[d] }

    mutating func consume(_ entry: HistoryEntry, history: History, _ change: (Change) -> Void = { _ in }) {
        switch entry.event {
        case .serverApply(let d, let c, let id, let op, let revision):
            if revision != next[d] {
                anomalies.append(
                    "t=\(entry.time) \(history.documentNames[d]): op \(id) applied as revision \(revision) after \(next[d] - 1)"
                )
            }
            window[d].append(Entry(time: entry.time, client: c, opId: id, op: op, revision: revision))
            entries += 1
            next[d] = revision + 1
            if window[d].count - start[d] > windowSize { foldOldest(d, change) }
            peakEntries = max(peakEntries, entries)
        case .serverRevision(let d, _, let to, let cause):
            if to < next[d] - 1 {
                let live = window[d][start[d]...]
                let keep = live.firstIndex { $0.revision > max(to, 0) } ?? window[d].count
                for dropped in window[d][keep...] {
                    change(.lost(Lost(document: d, entry: dropped, time: entry.time, cause: cause)))
                }
                entries -= window[d].count - keep
                window[d].removeLast(window[d].count - keep)
                if keep == start[d], max(to, 0) < revisionFolded(d) {
                    // Past the window: the folded ops beyond `to` were undone, but they are gone.
                    gaps[d].append(
                        "t=\(entry.time) the revision went back from \(next[d] - 1) to \(to) (\(cause)), past the \(windowSize) ops the checkers keep of a note: its ops up to \(revisionFolded(d)) were folded away"
                    )
                    beyondWindow[d] = true
                    folded[d] = max(to, 0)
                    change(.forgot(document: d, to: max(to, 0), time: entry.time, cause: cause))
                }
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

    /// The revision of document `d`'s last folded op (0 before any).
    private func revisionFolded(_ d: Int) -> Int { lastFolded[d] }

    private mutating func foldOldest(_ d: Int, _ change: (Change) -> Void) {
        let e = window[d][start[d]]
        change(.folded(document: d, ordinal: folded[d], entry: e))
        lastFolded[d] = e.revision
        folded[d] += 1
        start[d] += 1
        entries -= 1
        // Compact now and then, so the array does not keep the folded entries' slots.
        if start[d] >= windowSize {
            window[d].removeFirst(start[d])
            start[d] = 0
        }
    }

    /// Folds every op still in the window, document by document, oldest first (the end of the run).
    mutating func foldAll(_ change: (Change) -> Void) {
        for d in window.indices { foldAll(d, change) }
    }

    mutating func foldAll(_ d: Int, _ change: (Change) -> Void) {
        while window[d].count > start[d] { foldOldest(d, change) }
    }

    /// What the record misses of document `d`'s server history, or nil when it holds every
    /// revision up to the last it saw and to the server's final revision.
    func unobserved(_ d: Int, serverRevision: Int?) -> String? {
        let top = max(next[d] - 1, serverRevision ?? 0)
        let missing = top - count(d)
        let why =
            gaps[d].isEmpty ? "" : ": " + gaps[d].prefix(3).joined(separator: "; ") + (gaps[d].count > 3 ? "; …" : "")
        if beyondWindow[d] { return "the checkers could not follow this note's history\(why)" }
        guard missing > 0 else { return nil }
        return "the record holds \(count(d)) of \(top) server revisions of this note\(why)"
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
