extension Evaluator {
    /// Candidate rows from the plan's index hints. Hints are taken from the fewest rows up: the
    /// first is materialized, later ones intersect it (galloping search; an OR of several keys by
    /// binary search in each), and intersecting stops once few rows remain, since the full filter
    /// runs on every candidate anyway. nil: scan instead.
    func candidates(_ plan: Plan, table t: Int) -> [Int32]? {
        guard !plan.indexHints.isEmpty else { return nil }
        // `Id = '...'` / `Id IN (...)`: the id map answers directly, no index over every id.
        if let ids = plan.indexHints.first(where: { $0.position == 0 }) {
            let table = ctx.state.tables[t]
            return Array(Set(ids.keys.compactMap { key in ids.exactIds[key].flatMap { table.rowById[$0] } })).map(Int32.init).sorted()
        }
        var lists: [[[Int32]]] = plan.indexHints.map { hint in
            let index = ctx.index(table: t, position: hint.position)
            var seen: Set<String> = []
            return hint.keys.compactMap { key in seen.insert(key).inserted ? index.rowsByKey[key] ?? [] : nil }
        }
        lists.sort { $0.reduce(0) { $0 + $1.count } < $1.reduce(0) { $0 + $1.count } }
        var current: [Int32]
        if lists[0].count == 1 {
            current = lists[0][0]
        } else {
            current = lists[0].flatMap { $0 }
            current.sort()
        }
        for others in lists.dropFirst() where current.count > Evaluator.enoughCandidates {
            if others.count == 1 {
                current = Evaluator.intersect(current, others[0])
            } else {
                current = current.filter { row in others.contains { Evaluator.contains($0, row) } }
            }
        }
        return current
    }

    /// Below this many candidates the filter itself is cheaper than more intersecting.
    static let enoughCandidates = 32

    /// Rows in both ascending lists: galloping search through the longer one from where the
    /// previous match left off (cost ~ short × log(long / short)).
    static func intersect(_ a: [Int32], _ b: [Int32]) -> [Int32] {
        let (short, long) = a.count <= b.count ? (a, b) : (b, a)
        var out: [Int32] = []
        out.reserveCapacity(short.count)
        short.withUnsafeBufferPointer { x in
            long.withUnsafeBufferPointer { y in
                var lo = 0
                for v in x {
                    // Gallop: find a bound where y[hi] >= v, then binary search in (lo, hi].
                    var step = 1
                    var hi = lo
                    while hi < y.count && y[hi] < v {
                        lo = hi + 1
                        hi += step
                        step <<= 1
                    }
                    if hi > y.count { hi = y.count }
                    var l = lo, h = hi
                    while l < h {
                        let mid = (l + h) >> 1
                        if y[mid] < v { l = mid + 1 } else { h = mid }
                    }
                    lo = l
                    if lo == y.count { break }
                    if y[lo] == v { out.append(v) }
                }
            }
        }
        return out
    }

    /// Binary search in an ascending list.
    static func contains(_ list: [Int32], _ value: Int32) -> Bool {
        list.withUnsafeBufferPointer { p in
            var lo = 0, hi = p.count
            while lo < hi {
                let mid = (lo + hi) >> 1
                if p[mid] < value { lo = mid + 1 } else { hi = mid }
            }
            return lo < p.count && p[lo] == value
        }
    }
}
