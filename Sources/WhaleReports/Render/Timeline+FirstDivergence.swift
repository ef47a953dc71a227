extension Timeline {
    /// The row of the first divergence and why that row:
    /// 1. the earliest event the evidence names by time (`t=N`) or op id;
    /// 2. else, for the first client whose final text differs from its server's, the first
    ///    remote op it applied while one of its own was in flight (its first concurrent
    ///    transform, where OT divergence arises), else the first op the server transformed on
    ///    its document (applied past the op's base revision);
    /// 3. else that client's final state.
    static func firstDivergence(_ lines: [HistoryLine], evidence: [String], documentOf: [String: String]) -> (row: Int, why: String)? {
        var times = Set<Int>(), words = Set<String>()
        for line in evidence {
            var rest = Substring(line)
            while let r = rest.range(of: "t=") {
                rest = rest[r.upperBound...]
                let digits = rest.prefix { $0.isNumber }
                if let t = Int(digits) { times.insert(t) }
            }
            for w in line.split(whereSeparator: { " ,;()'\"".contains($0) }) { words.insert(String(w)) }
        }
        var best: Int?
        if let t = times.min(), let i = lines.firstIndex(where: { $0.t == t }) { best = i }
        if let i = lines.firstIndex(where: { $0.opId.map(words.contains) ?? false }) { best = min(best ?? i, i) }
        if let best { return (best, "the earliest event the evidence names") }
        var server: [String: String] = [:]
        for line in lines where line.type == "serverFinal" { if let d = line.string("document") { server[d] = line.string("text") } }
        guard let final = lines.firstIndex(where: { line in
            guard line.type == "clientFinal", let c = line.client, let d = documentOf[c], let s = server[d] else { return false }
            return line.string("text") != s
        }), let client = lines[final].client else { return nil }
        if let i = firstConcurrentApply(lines, client: client) {
            return (i, "\(client), whose text diverged, applies a remote op while its own is in flight: its first concurrent transform")
        }
        if let document = documentOf[client], let i = firstServerTransform(lines, document: document) {
            return (i, "the server's first transformed op on \(document), the document of \(client), whose text diverged")
        }
        return (final, "\(client)'s final text differs from the server's")
    }

    /// The first `clientRevision` of `client` that is not its own ack, while it has an op in flight.
    static func firstConcurrentApply(_ lines: [HistoryLine], client: String) -> Int? {
        var inFlight = Set<String>()
        var acked: Int?
        for (i, line) in lines.enumerated() where line.client == client {
            switch line.type {
            case "invoke": if let id = line.opId { inFlight.insert(id) }
            case "ack": if let id = line.opId { inFlight.remove(id) }; acked = line.int("revision")
            case "failed": if let id = line.opId { inFlight.remove(id) }
            case "clientRevision":
                if !inFlight.isEmpty, line.int("revision") != acked { return i }
            default: break
            }
        }
        return nil
    }

    /// The first `serverApply` on `document` past its op's base revision (the server transformed it).
    static func firstServerTransform(_ lines: [HistoryLine], document: String) -> Int? {
        var base: [String: Int] = [:]
        for (i, line) in lines.enumerated() {
            if line.type == "invoke", let id = line.opId, let b = line.int("baseRevision") { base[id] = b }
            if line.type == "serverApply", line.string("document") == document, let id = line.opId,
               let r = line.int("revision"), let b = base[id], r > b + 1 { return i }
        }
        return nil
    }
}
