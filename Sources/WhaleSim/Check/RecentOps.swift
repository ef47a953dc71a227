/// The ids of a note's last folded ops (a ring of the log's window size): a second apply of one of
/// them is "applied twice", and evidence can name the op that inserted a scalar after the op itself
/// was let go. Older ops are not remembered (``IntentionChecker`` says what that changes).
struct RecentOps {
    let capacity: Int
    private var ring: [(opId: String, ordinal: Int, revision: Int)] = []
    private var next = 0
    /// The revision each id in the ring was first applied as.
    private var firstRevision: [String: Int] = [:]

    init(capacity: Int) { self.capacity = max(1, capacity) }

    mutating func append(opId: String, ordinal: Int, revision: Int) {
        if ring.count < capacity {
            ring.append((opId, ordinal, revision))
        } else {
            let old = ring[next]
            if firstRevision[old.opId] == old.revision { firstRevision[old.opId] = nil }
            ring[next] = (opId, ordinal, revision)
        }
        next = (next + 1) % capacity
        if firstRevision[opId] == nil { firstRevision[opId] = revision }
    }

    /// The revision `opId` was applied as, if it is among the last ops.
    func revision(of opId: String) -> Int? { firstRevision[opId] }

    /// The id of op number `ordinal` of the log, if it is among the last ops.
    func opId(ordinal: Int) -> String? { ring.first { $0.ordinal == ordinal }?.opId }
}
