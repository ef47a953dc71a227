import WhaleProtocol

/// One app window's model side, shaped like the Whaler app, sans-I/O: a page (the board, or
/// one account's page) with its stores, fed by page fetches, mutation replies and the pool's
/// `resourceUpdate`s. Feed it ``Event``s, carry out the ``Action``s.
///
/// ```swift
/// var client = ModelClient(clientId: "c1", caller: ann, page: .board)
/// var actions = client.handle(.joined)                     // → .query("c1:q1", .board)
/// actions = client.handle(.answered(requestId: "c1:q1", .success(snapshot)))
/// actions = client.mutate(.saveAccounts([card]))           // optimistic; → .mutate("c1:m2", ...)
/// ```
///
/// What it shows (``view``) is what the server confirmed (``confirmed``) with the mutations
/// still pending applied on top; a refused mutation simply drops out of the overlay (rollback).
/// Every confirmed record carries the pool `seq` it is known at: a fetch answer, a carried
/// record or a reply only replaces what is older (per-record last writer wins in server order),
/// because replies, fetch answers and socket updates travel separate connections and may
/// arrive in any order. On a `resourceUpdate` from someone else the original protocol
/// refetches the page; protocol 2 applies the carried record when its `seq` follows the last
/// one the socket saw, and refetches on a gap. (The page fetches carry their pool's `seq`:
/// whalesim's GraphQL extension.)
public struct ModelClient: Sendable {
    public enum Page: Hashable, Sendable, Codable {
        /// The organization's kanban (the caller's tracked accounts; organization pool).
        case board
        /// One account's page: contacts, tasks, assignment entries (that account's pool).
        case account(String)
    }

    public struct Configuration: Sendable, Hashable {
        public var protocolVersion: ProtocolVersion
        /// `stale-refetch-overwrites` and `echo-storm` live here.
        public var faults: FaultSet
        public init(protocolVersion: ProtocolVersion = .v2, faults: FaultSet = []) {
            self.protocolVersion = protocolVersion
            self.faults = faults
        }
    }

    public enum Event: Sendable, Hashable {
        /// The socket joined the page's pool (again): fetch the page.
        case joined
        case disconnected
        case received(ServerEnvelope)
        case answered(requestId: String, Result<PoolSnapshot, ModelError>)
        case replied(requestId: String, Result<MutationReply, ModelError>)
    }

    public enum Action: Sendable, Hashable {
        case query(requestId: String, ModelQuery)
        case mutate(requestId: String, Mutation)
        /// A mutation of this client was applied at server order `order`.
        case acknowledged(requestId: String, order: Int)
        /// A mutation was refused; its optimistic change is rolled back.
        case refused(requestId: String, ModelError)
        /// Something the client could not use (a server error, an unreadable record).
        case failed(String)
    }

    struct Fetch: Sendable, Hashable {
        var query: ModelQuery
        /// The record key whose update caused the refetch (what the echo-storm fault re-saves).
        var trigger: String?
    }

    public let clientId: ClientID
    public let caller: Caller
    public let page: Page
    public internal(set) var configuration: Configuration
    /// Shares the records this page receives with the other pages of the process that hold
    /// them (a live runner's thousand pages); nil keeps a copy of its own, as the simulator does.
    public var interner: ModelRecordInterner?

    /// Server-confirmed records of the page, by key.
    public internal(set) var confirmed: [String: ModelRecord] = [:]
    /// The pool `seq` each key is known at (kept for removed keys too).
    public internal(set) var stamps: [String: Int] = [:]
    /// Mutations sent and not answered yet, in order.
    public internal(set) var pending: [(requestId: String, mutation: Mutation)] = []
    var fetches: [String: Fetch] = [:]
    /// The `seq` of the last update the socket delivered since it joined (protocol 2).
    var socketSeq: Int?
    /// The `seq` of the first update the socket delivered since it joined: a fetch answered at
    /// an older `seq` than the one before it left a gap nobody would otherwise notice (the
    /// server may join a new socket to its pool a moment after the client sees the upgrade, so
    /// an update made between the fetch's read and the pool join reaches neither).
    var firstSocketSeq: Int?
    public internal(set) var isJoined = false
    /// True once a page fetch has been applied.
    public internal(set) var hasFetched = false
    var nextRequest = 1

    public init(clientId: ClientID, caller: Caller, page: Page, configuration: Configuration = .init()) {
        self.clientId = clientId
        self.caller = caller
        self.page = page
        self.configuration = configuration
    }

    /// The pool the page listens to.
    public var poolId: String {
        switch page {
        case .board: caller.organizationId
        case .account(let id): id
        }
    }

    public var query: ModelQuery {
        switch page {
        case .board: .board
        case .account(let id): .accountPage(accountID: id)
        }
    }

    /// Nothing pending and no fetch in flight.
    public var isQuiet: Bool { pending.isEmpty && fetches.isEmpty }

    var speaksV2: Bool { configuration.protocolVersion == .v2 }
    func has(_ fault: Fault) -> Bool { configuration.faults.contains(fault) }

    /// The faults switched on now. Whoever drives the state machine may switch them between
    /// events (the simulator's fault windows, a live runner's schedule); nothing inside reads a clock.
    public var faults: FaultSet {
        get { configuration.faults }
        set { configuration.faults = newValue }
    }

    mutating func makeRequestId(_ kind: String) -> String {
        defer { nextRequest += 1 }
        return "\(clientId.rawValue):\(kind)\(nextRequest)"
    }

    /// Sends a mutation; it shows in ``view`` at once (optimistic).
    public mutating func mutate(_ mutation: Mutation) -> [Action] {
        let id = makeRequestId("m")
        pending.append((id, mutation))
        return [.mutate(requestId: id, mutation)]
    }

    mutating func refetch(trigger: String?, _ actions: inout [Action]) {
        let id = makeRequestId("q")
        fetches[id] = Fetch(query: query, trigger: trigger)
        actions.append(.query(requestId: id, query))
    }

    /// Feeds one event; returns the actions to carry out, in order.
    public mutating func handle(_ event: Event) -> [Action] {
        var actions: [Action] = []
        switch event {
        case .joined:
            isJoined = true
            socketSeq = nil
            firstSocketSeq = nil
            refetch(trigger: nil, &actions)
        case .disconnected:
            isJoined = false
            socketSeq = nil
            firstSocketSeq = nil
        case .received(let envelope):
            onReceived(envelope, &actions)
        case .answered(let requestId, let result):
            onAnswer(requestId, result, &actions)
        case .replied(let requestId, let result):
            onReply(requestId, result, &actions)
        }
        forgetSettledRemovals()
        return actions
    }

    /// Drops the stamps of keys no longer on the page once nothing older can reach them.
    ///
    /// A removed key keeps its stamp so that an older version arriving late (a fetch answer or a
    /// reply overtaken by the socket, or socket frames a fetch answer overtook) cannot bring it
    /// back. Kept forever, the stamps grew every page by every task created and deleted in its
    /// pool, for as long as the run went on (issue 21).
    /// Once nothing is pending, no fetch is in flight and the socket has delivered every update
    /// up to a stamp's `seq` (protocol 2 only: the original has no `seq`), anything that can
    /// still arrive is newer: socket updates come in order past `socketSeq`, and a fetch or a
    /// mutation sent later is answered from a server state that already holds that `seq`. So the
    /// stamp decides nothing any more and is dropped. Done in one sweep once the removed keys
    /// pass a quarter of the page's records (at least 16), so the cost, one pass over the stamps,
    /// is spread over the updates that made them. Swept only once they outnumbered the records
    /// (at least 64), a thousand pages' stamps were still filling up at the end of the 10-minute
    /// soak, a creep of the runner's memory with the length of the run (issue 21, heaptrack).
    mutating func forgetSettledRemovals() {
        guard let delivered = socketSeq, isQuiet, stamps.count - confirmed.count > max(16, confirmed.count / 4) else {
            return
        }
        stamps = stamps.filter { key, seq in confirmed[key] != nil || seq > delivered }
    }
}
