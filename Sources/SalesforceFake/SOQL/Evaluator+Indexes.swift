extension Evaluator {
    /// Candidate rows from the plan's index hints: the hint matching the fewest rows gives the
    /// list, each other hint keeps the rows whose key number (the index's reverse column) is one
    /// of its keys. The full filter still runs on every candidate. nil: scan instead.
    func candidates(_ plan: Plan, table t: Int) -> [Int32]? {
        guard !plan.indexHints.isEmpty else { return nil }
        // `Id = '...'` / `Id IN (...)`: the id map answers directly, no index over every id.
        if let ids = plan.indexHints.first(where: { $0.position == 0 }) {
            let table = ctx.state.tables[t]
            return Array(Set(ids.keys.compactMap { key in ids.exactIds[key].flatMap { table.rowById[$0] } })).map(
                Int32.init
            ).sorted()
        }
        let indexes = plan.indexHints.map { ctx.index(table: t, position: $0.position) }
        let sizes: [Int] = zip(plan.indexHints, indexes).map { hint, index in
            Set(hint.keys).reduce(0) { $0 + (index.rowsByKey[$1]?.count ?? 0) }
        }
        let order = sizes.indices.sorted { sizes[$0] < sizes[$1] }
        let first = order[0]
        var current: [Int32]
        let firstKeys = Array(Set(plan.indexHints[first].keys))
        if firstKeys.count == 1 {
            current = indexes[first].rowsByKey[firstKeys[0]] ?? []
        } else {
            current = firstKeys.flatMap { indexes[first].rowsByKey[$0] ?? [] }
            current.sort()
        }
        // The other hints check each candidate's key number: one array read per row.
        for h in order.dropFirst() where !current.isEmpty {
            let index = indexes[h]
            let wanted = plan.indexHints[h].keys.compactMap { index.keyNumbers[$0] }
            if wanted.isEmpty { return [] }
            current = index.keyOfRow.withUnsafeBufferPointer { column in
                if wanted.count == 1 {
                    let w = wanted[0]
                    return current.filter { column[Int($0)] == w }
                }
                return current.filter { wanted.contains(column[Int($0)]) }
            }
        }
        return current
    }
}
