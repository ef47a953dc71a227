import WhaleOT

/// One thing that happened in a simulated run. Clients and documents are indexes into
/// ``History/clientNames`` and ``History/documentNames``.
///
/// Op outcomes follow Jepsen: an op `invoke`d and then `ack`ed is ok; one answered with
/// an error is failed; one with neither at the end is unknown (lost in flight, or the run ended).
public enum HistoryEvent: Hashable, Sendable {
    /// The user edited the client's text (the workload's intent, before any protocol logic).
    case edit(client: Int, position: Int, deleted: Int, inserted: String)
    /// The client session created an op for the server, based on `baseRevision`.
    case invoke(client: Int, opId: String, op: Operation, baseRevision: Int)
    /// A `docChange` left the client (first send or a resend after reconnect).
    case send(client: Int, opId: String, op: Operation, revision: Int)
    /// The client saw its op acknowledged at `revision`.
    case ack(client: Int, opId: String, revision: Int)
    /// The server answered the op with an error (nothing applied).
    case failed(client: Int, opId: String, code: String)
    /// The server appended `op` (transformed to its history) as revision `revision` (1-based count).
    case serverApply(document: Int, client: Int, opId: String, op: Operation, revision: Int)
    /// A server document's revision changed other than by one apply (restart, reset...).
    case serverRevision(document: Int, from: Int, to: Int, cause: String)
    /// What the live runner's observer of a document saw, or could not see, of revisions
    /// `from`+1 through `to` (``ObservationKind``). The simulator never records one: it sees all.
    case observation(document: Int, from: Int, to: Int, kind: ObservationKind, detail: String)
    /// A client's revision changed to `revision`.
    case clientRevision(client: Int, revision: Int)
    /// The server sent the client an error message.
    case error(client: Int, code: String, message: String)
    /// A `cursorUpdate` from `client` reached the server.
    case cursorDelivered(client: Int, revision: Int, selection: Selection)
    /// The client chose a selection explicitly while synchronized at `revision` (cursor oracle baseline).
    case selectionSet(client: Int, revision: Int, selection: Selection)
    /// At a check point: the client's own selection.
    case ownCursor(client: Int, revision: Int, selection: Selection, textLength: Int)
    /// At a check point: how `observer` sees `subject`'s cursor (nil: not at all).
    case remoteCursor(observer: Int, subject: Int, revision: Int, selection: Selection?, textLength: Int)
    case connect(client: Int)
    case disconnect(client: Int, cause: String)
    case serverCrash
    case serverRestart
    /// A nemesis or workload note (partition, slow link...), for the timeline.
    case note(String)
    /// Faults healed, workload stopped: the liveness phase starts.
    case heal
    /// Whether the run went quiet (no messages, nothing pending) and how long after healing.
    case quiescence(reached: Bool, ticksAfterHeal: Int)
    /// Messages the network carried and client edits made, for the loop bound.
    case traffic(messages: Int, edits: Int, clients: Int)
    /// A client's state at the end of the run.
    case clientFinal(client: Int, text: String, revision: Int, pendingOps: Int, connected: Bool)
    /// A server document's state at the end of the run.
    case serverFinal(document: Int, text: String, revision: Int, historyCount: Int)

    // The model side (scenarios with a `model` section). Records are "key json" lines
    // (`account:acc-1 {"id":"acc-1",...}`), sorted by key.
    /// The client sent a GraphQL mutation.
    case modelInvoke(client: Int, requestId: String, mutation: String)
    /// The server applied it as number `order` in server order, writing these records.
    case modelApply(client: Int, requestId: String, order: Int, records: [String])
    /// The client got the mutation's success reply.
    case modelAck(client: Int, requestId: String, order: Int)
    /// The mutation was refused (or the server was down); the client rolled it back.
    case modelFailed(client: Int, requestId: String, code: String)
    /// At the end: what the client's page shows, and how many of its mutations are unanswered.
    case modelClientFinal(client: Int, page: String, records: [String], pending: Int)
    /// At the end: the server's answer to that client's page fetch.
    case modelServerFinal(client: Int, page: String, records: [String])
    /// At the end: every record the server holds (tracking as tracked pairs).
    case modelServerState(records: [String])
}

/// How a live run knows a stretch of a document's server history.
public enum ObservationKind: String, Hashable, Sendable, CaseIterable {
    /// Not observed, and the server offered no account of it: what depends on it is unknown.
    case gap
    /// Not observed live; taken from the server's own account (a resync from the run's baseline).
    case filled
    /// The server broadcast one op as that revision and its own account holds another there.
    case conflict
}

/// A history event with the simulated time it happened at.
public struct HistoryEntry: Hashable, Sendable {
    public var time: SimTime
    public var event: HistoryEvent
    public init(time: SimTime, event: HistoryEvent) {
        self.time = time
        self.event = event
    }
}
