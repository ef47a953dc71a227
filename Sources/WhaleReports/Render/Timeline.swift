/// A failed run's history as a timeline: one column per client (its ops, acks, remote applies,
/// cursors, connects) and one for the server and the nemeses, one row per event. The shrunk
/// run's history when there is one, else the run's own. The first divergence is highlighted.
struct Timeline {
    var run: RunDirectory
    var maxRows: Int

    /// Past this many clients the timeline has one "who" column instead of one per client.
    static let maxClientColumns = 16
    /// Longer event texts (a big paste) are cut with an ellipsis.
    static let maxCellScalars = 160

    /// The evidence the highlight is looked for in: the shrunk run's, else the run's failing checkers'.
    var evidence: [String] {
        if let s = run.record.shrunk, run.shrunkHistory != nil { return s.evidence }
        return run.record.verdicts.filter { $0.verdict != "valid" }.flatMap(\.evidence)
    }

    /// Client → document for a history without a record of its own (the shrunk run): the
    /// document of the client's applied ops, or the only document there is.
    static func inferDocuments(_ lines: [HistoryLine]) -> [String: String] {
        let documents = Set(lines.filter { $0.type == "serverFinal" }.compactMap { $0.string("document") })
        var map: [String: String] = [:]
        for line in lines where line.type == "serverApply" {
            if let c = line.client, let d = line.string("document") { map[c] = d }
        }
        if documents.count == 1 {
            for line in lines where line.type == "clientFinal" {
                if let c = line.client, map[c] == nil { map[c] = documents.first! }
            }
        }
        return map
    }

    /// The lines the timeline is drawn from, in passes: the shrunk run's, else the run's own
    /// (its file again when only the end state was loaded).
    var passes: HistoryPasses {
        if let shrunk = run.shrunkHistory { return HistoryPasses(source: .lines(shrunk)) }
        return run.historyPasses
    }

    /// What the timeline shows: the rows, how many there are, the clients and the highlight.
    struct Window {
        var count = 0
        var clients: [String] = []
        var divergence: Divergence?
        /// The rows shown (at most `maxRows`), from row `range.lowerBound`.
        var range = 0..<0
        var rows: [HistoryLine] = []
    }

    /// Finds the window in one pass, or two more when the highlight needs them (the diverged
    /// client's concurrent applies; the rows around a highlight past the first `maxRows`).
    /// What it holds is bounded by `maxRows`, the clients and the notes.
    func window(documentOf: [String: String]) throws -> Window {
        var w = Window()
        var seen = Set<String>()
        var scan = DivergenceScan(evidence: evidence, documentOf: documentOf)
        try passes.each { row, line in
            w.count += 1
            for key in ["client", "observer"] {
                if let c = line.string(key), c != "?", seen.insert(c).inserted { w.clients.append(c) }
            }
            scan.take(row, line)
            if row < maxRows { w.rows.append(line) }
            return true
        }
        w.clients.sort()
        w.divergence = try scan.finish(passes)
        w.range = 0..<min(w.count, maxRows)
        if let hit = w.divergence?.row, hit >= w.range.upperBound {
            let lo = max(0, min(hit - maxRows / 2, w.count - maxRows))
            w.range = lo..<min(w.count, lo + maxRows)
            w.rows = []
            try passes.each { row, line in
                if row >= w.range.lowerBound { w.rows.append(line) }
                return row + 1 < w.range.upperBound
            }
        }
        return w
    }

    func render() -> String {
        let shrunk = run.shrunkHistory != nil
        var out = "<section id=\"timeline\"><h2>\(shrunk ? "Shrunk history" : "History") per client</h2>\n"
        if let s = run.record.shrunk, shrunk {
            out +=
                "<p>The failure shrunk to \(s.clients) clients and \(s.ops) ops (seed \(s.seed)). Replay: <code>\(html(s.replayCommand))</code></p>\n"
        } else {
            out += "<p>Replay: <code>\(html(run.record.replayCommand))</code></p>\n"
        }
        let documentOf = run.shrunkHistory.map(Self.inferDocuments) ?? ConvergenceTable.documentOf(run)
        let w: Window
        do { w = try window(documentOf: documentOf) } catch {
            // The file was read whole when the run was loaded; this is a file changed since.
            return out
                + "<p class=\"invalid\">The history could not be read again: \(html("\(error)"))</p>\n</section>\n"
        }
        let clients = w.clients
        let hit = w.divergence?.row
        if let divergence = w.divergence {
            out +=
                "<p>First divergence (highlighted): row \(divergence.row + 1), t=\(divergence.t): \(html(divergence.why)).</p>\n"
        }
        if w.range.count < w.count {
            out +=
                "<p class=\"note\">Rows \(w.range.lowerBound + 1)–\(w.range.upperBound) of \(w.count) shown (the timeline is capped at \(maxRows) rows); the whole history is in \(html(shrunk ? run.record.shrunk?.history ?? "" : RunDirectory.historyFile)).</p>\n"
        }
        // Many clients: one "who" column instead of a column each, so the page stays small.
        let wide = clients.count <= Self.maxClientColumns
        out += "<div class=\"scroll\"><table class=\"timeline\"><tr><th>t</th>"
        if wide {
            for c in clients { out += "<th>\(html(c))</th>" }
            out += "<th>server · faults</th></tr>\n"
        } else {
            out += "<th>who</th><th>event</th></tr>\n"
        }
        let column = Dictionary(uniqueKeysWithValues: clients.enumerated().map { ($1, $0) })
        for (i, line) in zip(w.range, w.rows) {
            var (who, cls, text) = Self.cell(line)
            if text.unicodeScalars.count > Self.maxCellScalars {
                text = String(String.UnicodeScalarView(text.unicodeScalars.prefix(Self.maxCellScalars))) + "…"
            }
            out += "<tr\(i == hit ? " class=\"hit\"" : "")><td class=\"t\">\(line.t)</td>"
            if wide {
                let col = who.flatMap { column[$0] } ?? clients.count
                for k in 0...clients.count {
                    out += k == col ? "<td class=\"\(cls)\">\(html(text))</td>" : "<td></td>"
                }
            } else {
                out += "<td>\(html(who ?? "server"))</td><td class=\"\(cls)\">\(html(text))</td>"
            }
            out += "</tr>\n"
        }
        return out + "</table></div>\n</section>\n"
    }

    /// Which client column an event goes in (nil: the server column), its class and its text.
    static func cell(_ l: HistoryLine) -> (String?, String, String) {
        let id = l.opId ?? "?", rev = l.int("revision").map { "r\($0)" } ?? ""
        func sel() -> String { "[\(l.int("anchor").map(String.init) ?? "–"),\(l.int("head").map(String.init) ?? "–")]" }
        switch l.type {
        case "edit":
            return (
                l.client, "",
                "edit @\(l.int("position") ?? 0) −\(l.int("deleted") ?? 0) +\(String(reflecting: l.string("inserted") ?? ""))"
            )
        case "invoke": return (l.client, "", "invoke \(id) \(l.string("op") ?? "") base r\(l.int("baseRevision") ?? 0)")
        case "send": return (l.client, "", "send \(id) at \(rev)")
        case "ack": return (l.client, "ack", "ack \(id) → \(rev)")
        case "failed": return (l.client, "fail", "failed \(id) (\(l.string("reason") ?? ""))")
        case "clientRevision": return (l.client, "remote", "now at \(rev)")
        case "error": return (l.client, "fail", "error \(l.string("code") ?? ""): \(l.string("message") ?? "")")
        case "selectionSet": return (l.client, "cursor", "select \(sel()) at \(rev)")
        case "ownCursor": return (l.client, "cursor", "own cursor \(sel()) at \(rev)")
        case "remoteCursor":
            return (l.string("observer"), "cursor", "sees \(l.string("subject") ?? "?") at \(sel()) \(rev)")
        case "connect": return (l.client, "", "connect")
        case "disconnect": return (l.client, "fault-ev", "disconnect (\(l.string("cause") ?? ""))")
        case "clientFinal":
            let n = (l.string("text") ?? "").unicodeScalars.count
            return (
                l.client, "",
                "final \(rev), \(n) scalars, \(l.int("pendingOps") ?? 0) pending\(l.bool("connected") == false ? ", offline" : "")"
            )
        case "serverApply":
            return (
                nil, "",
                "\(l.string("document") ?? "") applies \(id) from \(l.client ?? "?") as \(rev): \(l.string("op") ?? "")"
            )
        case "serverRevision":
            return (
                nil, "fault-ev",
                "\(l.string("document") ?? "") revision \(l.int("from") ?? 0) → \(l.int("to") ?? 0) (\(l.string("cause") ?? ""))"
            )
        case "observation":
            let span = "revisions \((l.int("from") ?? 0) + 1)–\(l.int("to") ?? 0)"
            let what =
                switch l.string("kind") {
                case "filled": "\(span) taken from the server's account";
                case "conflict": "CONFLICT at \(span)";
                default: "\(span) not observed"
                }
            return (
                nil, l.string("kind") == "filled" ? "" : "fault-ev",
                "\(l.string("document") ?? "") \(what): \(l.string("detail") ?? "")"
            )
        case "cursorDelivered": return (nil, "cursor", "cursor of \(l.client ?? "?") \(sel()) at \(rev)")
        case "serverCrash": return (nil, "fault-ev", "server crashes")
        case "serverRestart": return (nil, "fault-ev", "server restarts")
        case "note": return (nil, "fault-ev", l.string("text") ?? "")
        case "heal": return (nil, "", "heal: faults end, liveness phase")
        case "quiescence":
            return (
                nil, "", l.bool("reached") == true ? "quiescent after \(l.int("ticksAfterHeal") ?? 0)" : "no quiescence"
            )
        case "traffic": return (nil, "", "traffic: \(l.int("messages") ?? 0) messages, \(l.int("edits") ?? 0) edits")
        case "serverFinal":
            return (
                nil, "",
                "final \(l.string("document") ?? "") \(rev), \((l.string("text") ?? "").unicodeScalars.count) scalars"
            )
        default:
            let fields = l.fields.keys.sorted().map { "\($0)=\(l.fields[$0]!)" }.joined(separator: " ")
            return (l.client, "", "\(l.type) \(fields)")
        }
    }
}
