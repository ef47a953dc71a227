/// How many scalars each op may delete: the sum of the `deleted` counts of the user edits that
/// went into it. An edit belongs to the op invoked right after it, else (composed into a pending
/// op) to its client's last invoked op. It keeps only each client's waiting edit: a settled count
/// is handed back to the caller, who keeps it with the op while the op is in flight.
struct DeleteAllowance {
    private var waiting: [Int?]
    private var lastOp: [String?]

    init(clients: Int) {
        waiting = Array(repeating: nil, count: clients)
        lastOp = Array(repeating: nil, count: clients)
    }

    /// The edit waits for its op; the edit before it, if it was waiting, settles on its client's last op.
    mutating func edit(client c: Int, deleted: Int) -> (opId: String, deleted: Int)? {
        let settled = settle(c)
        waiting[c] = deleted
        return settled
    }

    mutating func invoke(client c: Int, opId: String) -> (opId: String, deleted: Int)? {
        lastOp[c] = opId
        return settle(c)
    }

    /// What may yet settle on `opId`, invoked by client `c` (its waiting edit, if `opId` is its last op):
    /// an op judged before the edit after it arrives is given the benefit of the doubt.
    func waiting(for opId: String, client c: Int) -> Int {
        guard lastOp[c] == opId else { return 0 }
        return waiting[c] ?? 0
    }

    private mutating func settle(_ c: Int) -> (opId: String, deleted: Int)? {
        guard let n = waiting[c], let op = lastOp[c] else { return nil }
        waiting[c] = nil
        return (op, n)
    }

    /// Every waiting edit settled (the end of the run).
    mutating func finish() -> [(opId: String, deleted: Int)] {
        waiting.indices.compactMap { settle($0) }
    }
}
