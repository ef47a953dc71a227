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

/// Rows grouped by the normalized value of one field (strings lower-cased), each list ascending.
/// Serves AND-ed `field = 'literal'` predicates on big objects without scanning every row.
struct EqualityIndex: Sendable {
    var rowsByKey: [String: [Int32]] = [:]

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
        for (row, record) in rows.enumerated() {
            if let key = EqualityIndex.key(record.values[position]) { rowsByKey[key, default: []].append(Int32(row)) }
        }
    }

    mutating func add(row: Int, value: JSONValue) {
        guard let key = EqualityIndex.key(value) else { return }
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
        guard let key = EqualityIndex.key(value), var list = rowsByKey[key] else { return }
        list.removeAll { $0 == Int32(row) }
        rowsByKey[key] = list
    }
}
