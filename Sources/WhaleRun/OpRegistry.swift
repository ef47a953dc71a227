import NIOConcurrencyHelpers

/// When each op was invoked and under which message ids it travelled, shared by every client
/// of a run: a remote client applying an op finds its invoke time here (op→remote-apply), and
/// the recorder finds its author (the original protocol's broadcast names only the message id).
public final class OpRegistry: Sendable {
    /// `crossedDrop`: the op was pending when its client's socket dropped, so its ack waited for
    /// the redial and the resend: its latencies are `op_ack_resent` / `op_remote_apply_resent`,
    /// kept apart from what the server took for an op on a live connection.
    struct Op { var client: Int; var invokedUs: Int64; var crossedDrop = false }

    /// Two generations of ops: a run's registry used to keep every op it ever saw, some 100 bytes
    /// an op, which grew a long run's runner without bound (issue 21). An op is looked up within
    /// seconds of its invoke (its ack, its remote applies, a resend after a redial, a restart's
    /// catch-up, all within seconds in the soak), so every `keepUs` of invokes (60 s) the older
    /// generation is dropped and the current one becomes it: what is kept is between one and two
    /// windows of ops. An op looked up later than that has no invoke time, and its late
    /// latency is not measured.
    private struct Generations {
        var ops: [String: Op] = [:]
        var olderOps: [String: Op] = [:]
        var messages: [String: String] = [:]
        var olderMessages: [String: String] = [:]
        var startedUs: Int64?

        mutating func rotateIfDue(atUs: Int64, keepUs: Int64) {
            guard let started = startedUs else { startedUs = atUs; return }
            guard atUs - started >= keepUs else { return }
            olderOps = ops
            ops = [:]
            olderMessages = messages
            messages = [:]
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
            if g.ops[opId] == nil, g.olderOps[opId] == nil { g.ops[opId] = Op(client: client, invokedUs: atUs) }
        }
    }

    func crossedDrop(_ opIds: [String]) {
        guard !opIds.isEmpty else { return }
        state.withLockedValue { g in
            for id in opIds {
                if g.ops[id] != nil { g.ops[id]!.crossedDrop = true } else { g.olderOps[id]?.crossedDrop = true }
            }
        }
    }

    func sent(messageId: String, opId: String) { state.withLockedValue { $0.messages[messageId] = opId } }

    func op(_ opId: String) -> Op? { state.withLockedValue { $0.ops[opId] ?? $0.olderOps[opId] } }

    /// The op id of a broadcast: its own `opId` (protocol 2) or the message id it was sent under.
    func opId(messageId: String, opId: String?) -> String? {
        if let opId { return opId }
        return state.withLockedValue { $0.messages[messageId] ?? $0.olderMessages[messageId] }
    }

    /// How many ops the registry holds now (both generations).
    var count: Int { state.withLockedValue { $0.ops.count + $0.olderOps.count } }
}
