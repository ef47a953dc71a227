/// ORDER BY: several keys, ASC / DESC, NULLS FIRST / LAST; ties keep insertion order so the
/// result is deterministic.
enum Ordering {
    static func sort(_ rows: [SObjectRecord], by keys: [SortKey], ctx: EvalContext) -> [SObjectRecord] {
        let accessors: [FieldAccessor] = keys.compactMap { key in
            if case .field(let a) = key.source { return a } else { return nil }
        }
        let values: [[JSONValue]] = rows.map { row in accessors.map { ctx.value($0, row) } }
        let order = sortedIndices(values, keys)
        return order.map { rows[$0] }
    }

    /// Indices of `values` (one array of key values per row) in sorted order, stable.
    static func sortedIndices(_ values: [[JSONValue]], _ keys: [SortKey]) -> [Int] {
        var indices = Array(values.indices)
        indices.sort { a, b in
            for (k, key) in keys.enumerated() {
                var c = Values.compare(values[a][k], values[b][k], nullsFirst: key.nullsFirst)
                if key.descending && !(values[a][k].isNull || values[b][k].isNull) { c = -c }
                if c != 0 { return c < 0 }
            }
            return a < b
        }
        return indices
    }
}
