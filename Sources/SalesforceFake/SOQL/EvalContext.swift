/// Per-run state of one query: the org snapshot, semi-join results and the indexes used.
final class EvalContext {
    let org: Org
    let state: OrgState
    let apiVersion: String
    let includeDeleted: Bool
    var semiJoinSets: [Set<String>] = []
    private var indexes: [Int: EqualityIndex] = [:]

    init(org: Org, state: OrgState, apiVersion: String, includeDeleted: Bool) {
        self.org = org
        self.state = state
        self.apiVersion = apiVersion
        self.includeDeleted = includeDeleted
    }

    /// Any record by 18-character id (parents are found even when deleted, as lookups keep ids).
    @inline(__always)
    func record(id: String) -> SObjectRecord? {
        guard id.utf8.count == 18, let t = org.schemaIndexByPrefix[String(id.prefix(3))],
            let row = state.tables[t].rowById[id]
        else { return nil }
        return state.tables[t].rows[row]
    }

    /// The value an accessor reads from `row`, following parent references (null when a parent is missing).
    func value(_ accessor: FieldAccessor, _ row: SObjectRecord) -> JSONValue {
        var current = row
        for hop in accessor.hops {
            guard case .string(let id) = current.values[hop], let parent = record(id: id) else { return .null }
            current = parent
        }
        switch accessor.final {
        case .position(let p): return current.values[p]
        case .name(let name): return current[name] ?? .null
        case .typeName: return .string(current.type)
        }
    }

    /// The equality index of a field, from the snapshot, or built now and offered back to the org
    /// (kept only if no write happened since the snapshot).
    func index(table t: Int, position: Int) -> EqualityIndex {
        let key = t << 16 | position
        if let index = indexes[key] { return index }
        if let index = state.tables[t].indexes[position] {
            indexes[key] = index
            return index
        }
        let built = EqualityIndex(rows: state.tables[t].rows, position: position)
        indexes[key] = built
        let version = state.tables[t].version
        org.state.withLock { s in
            if s.tables[t].version == version, s.tables[t].indexes[position] == nil {
                s.tables[t].indexes[position] = built
            }
        }
        return built
    }
}
