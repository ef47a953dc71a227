/// ORDER BY: several keys, ASC / DESC, NULLS FIRST / LAST; ties keep insertion order so the
/// result is deterministic. Values are turned into sort keys once (text lower-cased up front),
/// so sorting 100k rows does not lower-case strings in every comparison.
enum Ordering {
    /// Sorted rows; with `keep` only the first `keep` of them (OFFSET + LIMIT), found without
    /// sorting everything.
    static func sort(_ rows: [SObjectRecord], by keys: [SortKey], keep: Int? = nil, ctx: EvalContext) -> [SObjectRecord]
    {
        let accessors: [FieldAccessor] = keys.compactMap { key in
            if case .field(let a) = key.source { return a } else { return nil }
        }
        let values: [[JSONValue]] = rows.map { row in accessors.map { ctx.value($0, row) } }
        let order = sortedIndices(values, keys, keep: keep)
        return order.map { rows[$0] }
    }

    /// A value prepared for comparison.
    enum Key: Sendable {
        case null
        case text(lowered: String, original: String)
        case number(Double)
        case bool(Bool)

        init(_ value: JSONValue) {
            switch value {
            case .string(let s): self = .text(lowered: s.lowercased(), original: s)
            case .bool(let b): self = .bool(b)
            case .int, .double: self = .number(value.doubleValue!)
            default: self = .null
            }
        }

        /// -1, 0 or 1 between two non-null keys (text ignoring case, then by exact text).
        static func compare(_ a: Key, _ b: Key) -> Int {
            switch (a, b) {
            case let (.text(la, oa), .text(lb, ob)):
                if la != lb { return la < lb ? -1 : 1 }
                return oa == ob ? 0 : (oa < ob ? -1 : 1)
            case let (.number(x), .number(y)): return x == y ? 0 : (x < y ? -1 : 1)
            case let (.bool(x), .bool(y)): return x == y ? 0 : (x ? 1 : -1)
            default: return 0
            }
        }

        var isNull: Bool { if case .null = self { return true } else { return false } }
    }

    /// Indices of `values` (one array of key values per row) in sorted order, stable.
    static func sortedIndices(_ values: [[JSONValue]], _ keys: [SortKey], keep: Int? = nil) -> [Int] {
        let prepared: [[Key]] = values.map { $0.map(Key.init) }
        func less(_ a: Int, _ b: Int) -> Bool {
            for (k, key) in keys.enumerated() {
                let x = prepared[a][k], y = prepared[b][k]
                let c: Int
                switch (x.isNull, y.isNull) {
                case (true, true): c = 0
                case (true, false): c = key.nullsFirst ? -1 : 1
                case (false, true): c = key.nullsFirst ? 1 : -1
                default: c = key.descending ? -Key.compare(x, y) : Key.compare(x, y)
                }
                if c != 0 { return c < 0 }
            }
            return a < b
        }
        if let keep, keep < values.count / 4 {
            // Top-k: a sorted window of the best `keep` rows seen so far.
            var best: [Int] = []
            best.reserveCapacity(keep + 1)
            guard keep > 0 else { return [] }
            for i in values.indices {
                if best.count == keep, !less(i, best[keep - 1]) { continue }
                var lo = 0, hi = best.count
                while lo < hi {
                    let mid = (lo + hi) >> 1
                    if less(best[mid], i) { lo = mid + 1 } else { hi = mid }
                }
                best.insert(i, at: lo)
                if best.count > keep { best.removeLast() }
            }
            return best
        }
        var indices = Array(values.indices)
        indices.sort(by: less)
        return indices
    }
}
