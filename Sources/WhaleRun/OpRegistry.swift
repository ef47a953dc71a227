import NIOConcurrencyHelpers

/// When each op was invoked and under which message ids it travelled, shared by every client
/// of a run: a remote client applying an op finds its invoke time here (op→remote-apply), and
/// the recorder finds its author (the original protocol's broadcast names only the message id).
public final class OpRegistry: Sendable {
    /// `crossedDrop`: the op was pending when its client's socket dropped, so its ack waited for
    /// the redial and the resend: its latencies are `op_ack_resent` / `op_remote_apply_resent`,
    /// kept apart from what the server took for an op on a live connection.
    struct Op { var client: Int; var invokedUs: Int64; var crossedDrop = false }
    private let state = NIOLockedValueBox<(ops: [String: Op], messages: [String: String])>(([:], [:]))

    public init() {}

    func invoked(opId: String, client: Int, atUs: Int64) {
        state.withLockedValue { if $0.ops[opId] == nil { $0.ops[opId] = Op(client: client, invokedUs: atUs) } }
    }

    func crossedDrop(_ opIds: [String]) {
        guard !opIds.isEmpty else { return }
        state.withLockedValue { for id in opIds { $0.ops[id]?.crossedDrop = true } }
    }

    func sent(messageId: String, opId: String) { state.withLockedValue { $0.messages[messageId] = opId } }

    func op(_ opId: String) -> Op? { state.withLockedValue { $0.ops[opId] } }

    /// The op id of a broadcast: its own `opId` (protocol 2) or the message id it was sent under.
    func opId(messageId: String, opId: String?) -> String? {
        if let opId { return opId }
        return state.withLockedValue { $0.messages[messageId] }
    }
}
