/// A dictionary that holds at most `capacity` entries, dropping the oldest insertion first.
/// Query cursors and cached query results both need exactly this, and nothing cleverer: FIFO
/// eviction is deterministic and costs O(1) per insert.
struct BoundedFIFOMap<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    let capacity: Int
    private var values: [Key: Value] = [:]
    private var order: [Key] = []
    private var orderHead = 0

    init(capacity: Int) { self.capacity = capacity }

    subscript(key: Key) -> Value? { values[key] }

    var count: Int { values.count }

    /// Inserts (or replaces) `value`, then drops the oldest entries past the capacity.
    mutating func insert(_ value: Value, for key: Key) {
        if values.updateValue(value, forKey: key) == nil { order.append(key) }
        while values.count > capacity, orderHead < order.count {
            values.removeValue(forKey: order[orderHead])
            orderHead += 1
        }
        // Reclaim the consumed prefix of `order` now and then, not on every insert.
        if orderHead > 4096, orderHead * 2 > order.count {
            order.removeFirst(orderHead)
            orderHead = 0
        }
    }

    /// Removes `key` now; its slot in the insertion order is skipped when reached.
    mutating func remove(_ key: Key) { values.removeValue(forKey: key) }
}
