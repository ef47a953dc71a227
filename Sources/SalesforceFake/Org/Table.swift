/// The rows of one object plus their id map and lazily built equality indexes.
struct Table: Sendable {
    let schema: ObjectSchema
    var rows: [SObjectRecord] = []
    var rowById: [String: Int] = [:]
    /// Equality indexes by field position, built on first use by a query (see `EqualityIndex`).
    var indexes: [Int: EqualityIndex] = [:]
    /// Bumped on every write; a lazily built index is stored only if no write happened meanwhile.
    var version = 0
    var nextIdCounter = 1

    init(schema: ObjectSchema) { self.schema = schema }

    mutating func append(_ record: SObjectRecord) {
        rowById[record.id] = rows.count
        let row = rows.count
        rows.append(record)
        for (position, _) in indexes { indexes[position]!.add(row: row, value: record.values[position]) }
        version += 1
    }

    mutating func replace(row: Int, with record: SObjectRecord) {
        let old = rows[row]
        for (position, _) in indexes where old.values[position] != record.values[position] {
            indexes[position]!.remove(row: row, value: old.values[position])
            indexes[position]!.add(row: row, value: record.values[position])
        }
        rows[row] = record
        version += 1
    }
}

/// Rows grouped by the normalized value of one field (strings lower-cased), each list ascending,
/// plus the reverse column (row → key number) so a short candidate list is checked against
/// another field with one array read per row instead of a search.
/// Serves AND-ed `field = 'literal'` predicates on big objects without scanning every row.
struct EqualityIndex: Sendable {
    var rowsByKey: [String: [Int32]] = [:]
    /// Key number of each normalized value.
    var keyNumbers: [String: Int32] = [:]
    /// Key number of every row's value, -1 for null (same length as the table).
    var keyOfRow: [Int32] = []

    /// The key a value is indexed under; nil for null (null rows are never in the index).
    static func key(_ value: JSONValue) -> String? {
        switch value {
        case .null: return nil
        case .string(let s): return s.lowercased()
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return String(i)
        case .double(let d): return d == d.rounded() && abs(d) < 9e15 ? String(Int(d)) : String(d)
        case .array, .object: return nil
        }
    }

    init() {}

    init(rows: [SObjectRecord], position: Int) {
        keyOfRow.reserveCapacity(rows.count)
        for (row, record) in rows.enumerated() {
            keyOfRow.append(-1)
            add(row: row, value: record.values[position])
        }
    }

    private mutating func number(_ key: String) -> Int32 {
        if let n = keyNumbers[key] { return n }
        let n = Int32(keyNumbers.count)
        keyNumbers[key] = n
        return n
    }

    mutating func add(row: Int, value: JSONValue) {
        while keyOfRow.count <= row { keyOfRow.append(-1) }
        guard let key = EqualityIndex.key(value) else {
            keyOfRow[row] = -1
            return
        }
        keyOfRow[row] = number(key)
        let r = Int32(row)
        if let last = rowsByKey[key]?.last, last > r {
            var list = rowsByKey[key]!
            list.insert(r, at: list.firstIndex(where: { $0 > r }) ?? list.count)
            rowsByKey[key] = list
        } else {
            rowsByKey[key, default: []].append(r)  // inserts append the largest row number
        }
    }

    mutating func remove(row: Int, value: JSONValue) {
        if row < keyOfRow.count { keyOfRow[row] = -1 }
        guard let key = EqualityIndex.key(value), var list = rowsByKey[key] else { return }
        list.removeAll { $0 == Int32(row) }
        rowsByKey[key] = list
    }
}
