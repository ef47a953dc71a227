extension Timeline {
    /// The first divergence: its row, the time on that row, and why that row.
    struct Divergence {
        var row: Int
        var t: Int
        var why: String
    }

    /// The row of the first divergence and why that row:
    /// 1. the earliest event the evidence names by time (`t=N`) or op id;
    /// 2. else, for the first client whose final text differs from its server's, the first
    ///    remote op it applied while one of its own was in flight (its first concurrent
    ///    transform, where OT divergence arises), else the first op the server transformed on
    ///    its document (applied past the op's base revision);
    /// 3. else that client's final state.
    static func firstDivergence(_ lines: [HistoryLine], evidence: [String], documentOf: [String: String]) -> Divergence?
    {
        var scan = DivergenceScan(evidence: evidence, documentOf: documentOf)
        for (row, line) in lines.enumerated() { scan.take(row, line) }
        // An array cannot fail to read.
        return try? scan.finish(HistoryPasses(source: .lines(lines)))
    }

    /// ``firstDivergence(_:evidence:documentOf:)`` a line at a time: ``take(_:_:)`` is fed one
    /// pass (the timeline's first, which also counts the rows and names the clients); what
    /// needs a diverged client known first takes one more pass in ``finish(_:)``. Memory is
    /// bounded by the clients and notes (their final texts), not by the history's length.
    struct DivergenceScan {
        var times = Set<Int>(), words = Set<String>()
        let documentOf: [String: String]
        var byTime: (row: Int, t: Int)?
        var byOp: (row: Int, t: Int)?
        var serverText: [String: String] = [:]
        /// Every client's final line whose document is known, in order (a client's text each).
        var finals: [(row: Int, t: Int, client: String, document: String, text: String?)] = []

        init(evidence: [String], documentOf: [String: String]) {
            self.documentOf = documentOf
            for line in evidence {
                var rest = Substring(line)
                while let r = rest.range(of: "t=") {
                    rest = rest[r.upperBound...]
                    let digits = rest.prefix { $0.isNumber }
                    if let t = Int(digits) { times.insert(t) }
                }
                for w in line.split(whereSeparator: { " ,;()'\"".contains($0) }) { words.insert(String(w)) }
            }
        }

        mutating func take(_ row: Int, _ line: HistoryLine) {
            if byTime == nil, let t = times.min(), line.t == t { byTime = (row, line.t) }
            if byOp == nil, !words.isEmpty, let id = line.opId, words.contains(id) { byOp = (row, line.t) }
            switch line.type {
            case "serverFinal": if let d = line.string("document") { serverText[d] = line.string("text") }
            case "clientFinal":
                if let c = line.client, let d = documentOf[c] {
                    finals.append((row, line.t, c, d, line.string("text")))
                }
            default: break
            }
        }

        /// The divergence, once every line was taken; `passes` reads the same lines again when
        /// the diverged client's concurrent applies must be looked for.
        func finish(_ passes: HistoryPasses) throws -> Divergence? {
            let named = [byTime, byOp].compactMap { $0 }.min { $0.row < $1.row }
            if let named { return Divergence(row: named.row, t: named.t, why: "the earliest event the evidence names") }
            guard let final = finals.first(where: { f in serverText[f.document].map { f.text != $0 } ?? false }) else {
                return nil
            }
            let client = final.client, document = final.document
            var concurrent = ConcurrentApply(client: client),
                transform = ServerTransform(document: document, documentOf: documentOf)
            var hit: (row: Int, t: Int)?, transformed: (row: Int, t: Int)?
            try passes.each { row, line in
                if concurrent.take(line) { hit = (row, line.t); return false }
                if transformed == nil, transform.take(line) { transformed = (row, line.t) }
                return true
            }
            if let hit {
                return Divergence(
                    row: hit.row, t: hit.t,
                    why:
                        "\(client), whose text diverged, applies a remote op while its own is in flight: its first concurrent transform"
                )
            }
            if let transformed {
                return Divergence(
                    row: transformed.row, t: transformed.t,
                    why:
                        "the server's first transformed op on \(document), the document of \(client), whose text diverged"
                )
            }
            return Divergence(row: final.row, t: final.t, why: "\(client)'s final text differs from the server's")
        }
    }

    /// Finds the first `clientRevision` of `client` that is not its own ack, while it has an op in flight.
    struct ConcurrentApply {
        let client: String
        var inFlight = Set<String>()
        var acked: Int?

        init(client: String) { self.client = client }

        /// True on the line that is that apply.
        mutating func take(_ line: HistoryLine) -> Bool {
            guard line.client == client else { return false }
            switch line.type {
            case "invoke": if let id = line.opId { inFlight.insert(id) }
            case "ack": if let id = line.opId { inFlight.remove(id) }; acked = line.int("revision")
            case "failed": if let id = line.opId { inFlight.remove(id) }
            case "clientRevision": return !inFlight.isEmpty && line.int("revision") != acked
            default: break
            }
            return false
        }
    }

    /// Finds the first `serverApply` on `document` past its op's base revision (the server
    /// transformed it). Only the base revisions of ops that can land on `document` are kept:
    /// those of its clients, and of clients whose document is not known.
    struct ServerTransform {
        let document: String
        let documentOf: [String: String]
        var base: [String: Int] = [:]

        init(document: String, documentOf: [String: String]) {
            self.document = document
            self.documentOf = documentOf
        }

        /// True on the line that is that apply.
        mutating func take(_ line: HistoryLine) -> Bool {
            if line.type == "invoke", let id = line.opId, let b = line.int("baseRevision") {
                if let c = line.client, let d = documentOf[c], d != document { return false }
                base[id] = b
            }
            guard line.type == "serverApply", line.string("document") == document, let id = line.opId,
                let r = line.int("revision"), let b = base[id]
            else { return false }
            return r > b + 1
        }
    }
}
