/// The per-document convergence section: each document's final server state and whether
/// every client editing it ended with the same text (and where a diverged client first differs).
struct ConvergenceTable {
    var run: RunDirectory
    var maxRows: Int
    /// Up to this many clients, every client gets a row; past it only those that differ.
    static let allClientsUpTo = 20

    struct ClientFinal {
        var client: String
        var document: String?
        var text: String
        var revision: Int
        var pending: Int
        var connected: Bool
    }

    /// The document each client edits: from the record, else inferred from the history.
    static func documentOf(_ run: RunDirectory) -> [String: String] {
        guard let docs = run.record.documents else { return Timeline.inferDocuments(run.history) }
        var map: [String: String] = [:]
        for d in docs { for c in d.clients { map[c] = d.name } }
        return map
    }

    /// Index (in Unicode scalars) of the first difference, nil when equal.
    static func firstDifference(_ a: String, _ b: String) -> Int? {
        let x = Array(a.unicodeScalars), y = Array(b.unicodeScalars)
        for i in 0..<min(x.count, y.count) where x[i] != y[i] { return i }
        return x.count == y.count ? nil : min(x.count, y.count)
    }

    func render() -> String {
        var out = "<section id=\"convergence\"><h2>Convergence per document</h2>\n"
        if let q = run.history.last(where: { $0.type == "quiescence" }) {
            let reached = q.bool("reached") ?? false
            out +=
                "<p>\(reached ? "quiescent \(q.int("ticksAfterHeal") ?? 0) \(html(run.record.unit)) after healing" : "<span class=\"invalid\">no quiescence</span> within the liveness budget")</p>\n"
        }
        var server: [String: (text: String, revision: Int, ops: Int)] = [:]
        var order: [String] = []
        for line in run.history where line.type == "serverFinal" {
            guard let d = line.string("document") else { continue }
            if server[d] == nil { order.append(d) }
            server[d] = (line.string("text") ?? "", line.int("revision") ?? 0, line.int("historyCount") ?? 0)
        }
        let docOf = Self.documentOf(run)
        let finals = run.history.filter { $0.type == "clientFinal" }.compactMap { line -> ClientFinal? in
            guard let c = line.client else { return nil }
            return ClientFinal(
                client: c, document: docOf[c], text: line.string("text") ?? "", revision: line.int("revision") ?? 0,
                pending: line.int("pendingOps") ?? 0, connected: line.bool("connected") ?? false)
        }
        guard !order.isEmpty else {
            return out
                + "<p class=\"note\">the run recorded no final state (it did not reach the liveness phase)</p>\n</section>\n"
        }
        out +=
            "<table><tr><th>document</th><th class=\"num\">server revision</th><th class=\"num\">length</th><th class=\"num\">history ops</th><th>clients converged</th></tr>\n"
        for d in order.prefix(maxRows) {
            let s = server[d]!
            let mine = finals.filter { $0.document == d }
            let same = mine.filter { $0.text == s.text }.count
            let cls = same == mine.count ? "valid" : "invalid"
            out +=
                "<tr><td>\(html(d))</td><td class=\"num\">\(s.revision)</td><td class=\"num\">\(s.text.unicodeScalars.count)</td><td class=\"num\">\(s.ops)</td>"
            out += "<td><span class=\"badge \(cls)\">\(same)/\(mine.count)</span></td></tr>\n"
        }
        out += "</table>\n"
        if order.count > maxRows { out += "<p class=\"note\">\(order.count - maxRows) more documents not listed</p>\n" }
        // Every client when there are few; past that only those that differ from their server,
        // so a thousand converged clients do not make a thousand rows.
        var rows: [(ClientFinal, String)] = []
        var hidden = 0
        for c in finals {
            var status = "<span class=\"note\">document unknown</span>", same = false
            if let d = c.document, let s = server[d] {
                if let at = Self.firstDifference(c.text, s.text) {
                    status =
                        "<span class=\"invalid\">differs at scalar \(at): client …\(html(excerpt(c.text, at)))… server …\(html(excerpt(s.text, at)))…</span>"
                } else if c.revision != s.revision {
                    status = "<span class=\"unknown\">same text, revision \(c.revision) vs \(s.revision)</span>"
                } else {
                    status = "<span class=\"valid\">same as the server</span>"
                    same = true
                }
            }
            if same, finals.count > Self.allClientsUpTo { hidden += 1 } else { rows.append((c, status)) }
        }
        if !rows.isEmpty {
            out +=
                "<table><tr><th>client</th><th>document</th><th class=\"num\">revision</th><th class=\"num\">pending ops</th><th>connected</th><th>text</th></tr>\n"
            for (c, status) in rows.prefix(maxRows) {
                out +=
                    "<tr><td>\(html(c.client))</td><td>\(html(c.document ?? "?"))</td><td class=\"num\">\(c.revision)</td><td class=\"num\">\(c.pending)</td><td>\(c.connected ? "yes" : "no")</td><td>\(status)</td></tr>\n"
            }
            out += "</table>\n"
        }
        if rows.count > maxRows { out += "<p class=\"note\">\(rows.count - maxRows) more clients not listed</p>\n" }
        if hidden > 0 {
            out +=
                "<p>\(hidden) of \(finals.count) clients ended with their server's text and revision\(hidden == finals.count ? "" : " (the others are listed)").</p>\n"
        }
        return out + "</section>\n"
    }

    /// Up to 12 scalars either side of `at`, newlines shown as ⏎.
    private func excerpt(_ text: String, _ at: Int) -> String {
        let s = Array(text.unicodeScalars)
        let lo = max(0, at - 12), hi = min(s.count, at + 12)
        guard lo < hi else { return "" }
        var out = String.UnicodeScalarView()
        out.append(contentsOf: s[lo..<hi])
        return String(out).replacingOccurrences(of: "\n", with: "⏎")
    }
}
