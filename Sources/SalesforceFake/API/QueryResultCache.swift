/// Answers to recent queries, keyed by (SOQL text, API version, queryAll) and the org's write
/// generation, so a repeated query skips the engine until any write changes the org. Sound because
/// the engine is deterministic: same org state, same frozen "now", same answer.
///
/// Bounded (FIFO eviction); results larger than `maxRows` are not kept. Capacity 0 turns it off.
/// Measured effect in docs/decisions/0006-query-result-cache.md.
struct QueryResultCache: Sendable {
    struct Key: Hashable, Sendable {
        var soql: String
        var version: String
        var includeDeleted: Bool
        var generation: Int
    }

    /// A cached answer; `page` is the serialized response when every row fits in the smallest page
    /// (200), so it is the same whatever batch size the client asks for.
    struct Entry: Sendable {
        var result: SOQLResult
        var page: [UInt8]?
    }

    let maxRows: Int
    private var entries: BoundedFIFOMap<Key, Entry>
    private(set) var hits = 0
    private(set) var misses = 0

    init(capacity: Int, maxRows: Int = 2000) {
        entries = BoundedFIFOMap(capacity: max(0, capacity))
        self.maxRows = maxRows
    }

    var capacity: Int { entries.capacity }
    /// Answers kept now (at most `capacity`).
    var count: Int { entries.count }

    mutating func lookup(_ key: Key) -> Entry? {
        guard capacity > 0 else { return nil }
        if let hit = entries[key] {
            hits += 1
            return hit
        }
        misses += 1
        return nil
    }

    mutating func store(_ entry: Entry, for key: Key) {
        guard capacity > 0, entry.result.records.count <= maxRows, entries[key] == nil else { return }
        entries.insert(entry, for: key)
    }
}

extension Org {
    /// Changes whenever a record is written (the sum of every table's write counter); composite
    /// rollbacks add `rollbacks << 40` so a restored state never reuses an earlier generation.
    func writeGeneration(rollbacks: Int) -> Int {
        state.withLock { s in s.tables.reduce(0) { $0 + $1.version } } &+ (rollbacks << 40)
    }
}
