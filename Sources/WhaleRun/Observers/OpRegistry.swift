import NIOConcurrencyHelpers

/// When each op was invoked and under which message ids it travelled, shared by every client
/// of a run: a remote client applying an op finds its invoke time here (op→remote-apply), and
/// the recorder finds its author (the original protocol's broadcast names only the message id).
public final class OpRegistry: Sendable {
    /// `crossedDrop`: the op was pending when its client's socket dropped, so its ack waited for
    /// the redial and the resend: its latencies are `op_ack_resent` / `op_remote_apply_resent`,
    /// kept apart from what the server took for an op on a live connection.
    struct Op { var client: Int; var invokedUs: Int64; var crossedDrop = false }

    /// An op as held: 16 bytes. The soak holds about a hundred thousand of them at once.
    private struct Stored {
        var invokedUs: Int64
        var client: Int32
        var crossedDrop: Bool
        init(_ op: Op) {
            invokedUs = op.invokedUs; client = Int32(truncatingIfNeeded: op.client); crossedDrop = op.crossedDrop
        }
        var op: Op { Op(client: Int(client), invokedUs: invokedUs, crossedDrop: crossedDrop) }
    }

    /// One generation's ops. An op id of whalesim's own form, `PREFIX:N` (the client id and its
    /// op count), is held as a number: the prefix's index in this generation's table and `N`.
    /// Keyed by the id string instead, each op took about 120 bytes (the string's own heap
    /// allocation and a 40-byte entry), 8 MB in the soak's two minutes of ops (issue 21,
    /// measured with heaptrack); as a number it takes about a third. An id of any other form
    /// is kept by its string.
    private struct Generation {
        /// Substring keys: a lookup slices the id without copying it (a client id is longer than a
        /// small string, so a `String` prefix would be an allocation for every lookup).
        var prefixes: [Substring: UInt64] = [:]
        var ops: [UInt64: Stored] = [:]
        var otherOps: [String: Stored] = [:]
        var messages: [String: String] = [:]

        static let seqBits: UInt64 = 40

        /// The numeric key of an id split by ``split(_:)``; nil when this generation has not seen
        /// its prefix.
        func key(_ parsed: (Substring, UInt64)) -> UInt64? {
            prefixes[parsed.0].map { $0 << Self.seqBits | parsed.1 }
        }

        /// `PREFIX:N` → (PREFIX, N) when N is a decimal number below 2^40 with no leading zero
        /// (so that the number gives the id back exactly).
        static func split(_ opId: String) -> (Substring, UInt64)? {
            let utf8 = opId.utf8
            guard let colon = utf8.lastIndex(of: UInt8(ascii: ":")) else { return nil }
            let digits = utf8[utf8.index(after: colon)...]
            guard !digits.isEmpty, digits.count <= 12, digits.first != UInt8(ascii: "0") || digits.count == 1 else {
                return nil
            }
            var seq: UInt64 = 0
            for byte in digits {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                seq = seq * 10 + UInt64(byte - UInt8(ascii: "0"))
            }
            guard seq < (1 << seqBits) else { return nil }
            return (opId[..<colon], seq)
        }

        /// `parsed`: `opId` split once by the caller (``split(_:)``), for both generations.
        func get(_ opId: String, _ parsed: (Substring, UInt64)?) -> Stored? {
            guard let parsed else { return otherOps[opId] }
            return key(parsed).flatMap { ops[$0] }
        }

        mutating func put(_ opId: String, _ parsed: (Substring, UInt64)?, _ op: Stored) {
            guard let parsed, let index = prefixes[parsed.0] ?? addPrefix(parsed.0) else { otherOps[opId] = op; return }
            ops[index << Self.seqBits | parsed.1] = op
        }

        /// A new prefix's index; nil once the table is full (2^24 prefixes in one generation).
        private mutating func addPrefix(_ prefix: Substring) -> UInt64? {
            guard UInt64(prefixes.count) < (1 << (64 - Self.seqBits)) else { return nil }
            let index = UInt64(prefixes.count)
            prefixes[prefix] = index
            return index
        }

        /// Marks `opId` as having crossed a drop; false if this generation does not hold it.
        mutating func markCrossed(_ opId: String, _ parsed: (Substring, UInt64)?) -> Bool {
            if let parsed {
                guard let k = key(parsed), ops[k] != nil else { return false }
                ops[k]!.crossedDrop = true
            } else {
                guard otherOps[opId] != nil else { return false }
                otherOps[opId]!.crossedDrop = true
            }
            return true
        }

        var count: Int { ops.count + otherOps.count }
    }

    /// Two generations of ops: a run's registry used to keep every op it ever saw, some 100 bytes
    /// an op, which grew a long run's runner without bound (issue 21). An op is looked up within
    /// seconds of its invoke (its ack, its remote applies, a resend after a redial, a restart's
    /// catch-up, all within seconds in the soak), so every `keepUs` of invokes (60 s) the older
    /// generation is dropped and the current one becomes it: what is kept is between one and two
    /// windows of ops. An op looked up later than that has no invoke time, and its late
    /// latency is not measured.
    private struct Generations {
        var current = Generation()
        var older = Generation()
        var startedUs: Int64?

        mutating func rotateIfDue(atUs: Int64, keepUs: Int64) {
            guard let started = startedUs else { startedUs = atUs; return }
            guard atUs - started >= keepUs else { return }
            older = current
            current = Generation()
            startedUs = atUs
        }
    }
    private let state = NIOLockedValueBox(Generations())
    private let keepUs: Int64

    /// `keepSeconds`: how long a generation of ops is kept before the next replaces it (an op
    /// stays findable for at least that long after its invoke).
    public init(keepSeconds: Int = 60) {
        keepUs = Int64(keepSeconds) * 1_000_000
    }

    func invoked(opId: String, client: Int, atUs: Int64) {
        state.withLockedValue { g in
            g.rotateIfDue(atUs: atUs, keepUs: keepUs)
            let parsed = Generation.split(opId)
            if g.current.get(opId, parsed) == nil, g.older.get(opId, parsed) == nil {
                g.current.put(opId, parsed, Stored(Op(client: client, invokedUs: atUs)))
            }
        }
    }

    func crossedDrop(_ opIds: [String]) {
        guard !opIds.isEmpty else { return }
        state.withLockedValue { g in
            for id in opIds {
                let parsed = Generation.split(id)
                if !g.current.markCrossed(id, parsed) { _ = g.older.markCrossed(id, parsed) }
            }
        }
    }

    func sent(messageId: String, opId: String) { state.withLockedValue { $0.current.messages[messageId] = opId } }

    func op(_ opId: String) -> Op? {
        let parsed = Generation.split(opId)
        return state.withLockedValue { g in (g.current.get(opId, parsed) ?? g.older.get(opId, parsed))?.op }
    }

    /// The op id of a broadcast: its own `opId` (protocol 2) or the message id it was sent under.
    func opId(messageId: String, opId: String?) -> String? {
        if let opId { return opId }
        return state.withLockedValue { $0.current.messages[messageId] ?? $0.older.messages[messageId] }
    }

    /// How many ops the registry holds now (both generations).
    var count: Int { state.withLockedValue { $0.current.count + $0.older.count } }
}
