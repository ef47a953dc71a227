import WhaleProtocol

/// The Whaler model, sans-I/O, in the style of ``WhaleProtocol/CollabServer``: feed it events,
/// carry out the actions in order. Queries are pure methods (`accounts(_:)`, `contacts(accountID:_:)`...).
/// The simulator and the live reference server (GraphQL resolvers, websocket pools, SQLite)
/// drive this same type.
///
/// ```swift
/// var model = ModelServer(restoring: seed.changes)
/// _ = model.handle(.joinPool("c1", poolId: "org-1", caller: ann, protocolVersion: .v2))
/// let actions = model.handle(.mutate(requestId: "r1", caller: ann, senderID: "c2", .saveAccounts([card])))
/// // → .persist([...]), .send("c1", resourceUpdate with record and seq), .reply("r1", .success(...))
/// ```
///
/// A mutation is validated whole before anything is applied (a refusal applies nothing), then
/// persisted (``Action/persist(_:)``) before any `resourceUpdate` goes out, then answered.
/// Updates go to the organization pool for accounts (and tracking), to the account's pool for
/// contacts, tasks and assignment entries, to every socket of the pool in ascending client id
/// order, the sender's own sockets included (receivers ignore their own `senderId`).
/// Nothing crosses organizations: an id of another organization is `notFound`, as if absent.
public struct ModelServer: Sendable {
    public struct Configuration: Sendable, Hashable {
        /// The envelope `senderId` of every message the server sends.
        public var serverId: String
        /// Catalog faults switched on in the model's pools (`rejoin-loses-update`).
        public var faults: FaultSet
        public init(serverId: String = "whalesim-server", faults: FaultSet = []) {
            self.serverId = serverId
            self.faults = faults
        }
    }

    public enum Event: Sendable, Hashable {
        /// A socket asks to join a pool (`ObjectId` header: an organization id or an account id).
        /// Protocol 2 needs a caller whose organization owns the pool; the original lets anyone in.
        case joinPool(ClientID, poolId: String, caller: Caller?, protocolVersion: ProtocolVersion)
        case leavePool(ClientID)
        /// A GraphQL mutation; `senderID` is the client instance id echoed in `resourceUpdate`.
        case mutate(requestId: String, caller: Caller, senderID: String?, Mutation)
    }

    public enum Action: Sendable, Hashable {
        /// Write these durably (upserts by ``ModelChange/key``) before carrying out what follows.
        case persist([ModelChange])
        case send(ClientID, ServerEnvelope)
        /// The mutation's answer (the GraphQL response).
        case reply(requestId: String, Result<MutationReply, ModelError>)
    }

    struct Member: Sendable, Hashable {
        var poolId: String
        var protocolVersion: ProtocolVersion
        /// The signed-in user of the socket (nil for an original-protocol socket without a valid token).
        var userId: String?
    }

    public let configuration: Configuration
    public internal(set) var state: ModelState
    /// Pool id → member sockets, sorted.
    var pools: [String: [ClientID]] = [:]
    var members: [ClientID: Member] = [:]
    var nextMessageSeq = 1

    public init(configuration: Configuration = .init(), state: ModelState = ModelState()) {
        self.configuration = configuration
        self.state = state
    }

    /// A server restarted from persisted changes (the last change per key, in any order).
    public init(configuration: Configuration = .init(), restoring changes: [ModelChange]) {
        var state = ModelState()
        for change in changes { state.apply(change) }
        self.init(configuration: configuration, state: state)
    }

    /// Feeds one event; returns the actions to carry out, in order.
    public mutating func handle(_ event: Event) -> [Action] {
        var actions: [Action] = []
        switch event {
        case .joinPool(let client, let poolId, let caller, let version):
            join(client, poolId: poolId, caller: caller, version: version, &actions)
        case .leavePool(let client):
            leave(client)
        case .mutate(let requestId, let caller, let senderID, let mutation):
            mutate(requestId: requestId, caller: caller, senderID: senderID, mutation, &actions)
        }
        return actions
    }

    /// The sockets of a pool, sorted.
    public func members(of poolId: String) -> [ClientID] { pools[poolId] ?? [] }

    /// The pool a socket is in.
    public func pool(of client: ClientID) -> String? { members[client]?.poolId }

    mutating func join(
        _ client: ClientID, poolId: String, caller: Caller?, version: ProtocolVersion, _ actions: inout [Action]
    ) {
        leave(client)
        if version == .v2 {
            guard let caller, (try? member(caller)) != nil else {
                refuse(client, ProtocolError(.unauthorized, "a valid access token is needed to join a pool"), &actions)
                return
            }
            guard poolId == caller.organizationId || state.accounts[poolId]?.organizationId == caller.organizationId
            else {
                refuse(client, ProtocolError(.forbidden, "\(poolId) is not a pool of your organization"), &actions)
                return
            }
        }
        members[client] = Member(poolId: poolId, protocolVersion: version, userId: caller?.userId)
        var list = pools[poolId] ?? []
        list.insert(client, at: list.firstIndex { $0 > client } ?? list.count)
        pools[poolId] = list
        // Protocol 2 tells the socket where its pool stood when it joined, so a page can tell
        // whether its fetch covers everything before the join (``ServerMessage/poolJoined``).
        // Its message id is not drawn from the counter, so other messages keep theirs.
        if version == .v2 {
            let marker = ServerMessage.poolJoined(poolId: poolId, seq: poolSeq(poolId))
            actions.append(
                .send(
                    client,
                    ServerEnvelope(senderId: configuration.serverId, messageId: "j:" + client.rawValue, message: marker)
                ))
        }
    }

    mutating func leave(_ client: ClientID) {
        guard let member = members.removeValue(forKey: client) else { return }
        pools[member.poolId]?.removeAll { $0 == client }
        if configuration.faults.contains(.rejoinLosesUpdate), let userId = member.userId {
            // The defect: membership treated as one per user, so the late close of a user's old
            // socket takes the socket it already rejoined with out of the pool too (it stays open,
            // hearing nothing).
            let gone = (pools[member.poolId] ?? []).filter { members[$0]?.userId == userId }
            pools[member.poolId]?.removeAll { gone.contains($0) }
            for other in gone { members[other] = nil }
        }
        if pools[member.poolId]?.isEmpty == true { pools[member.poolId] = nil }
    }

    mutating func makeMessageId() -> String {
        defer { nextMessageSeq += 1 }
        return "m\(nextMessageSeq)"
    }

    func refuse(_ client: ClientID, _ error: ProtocolError, _ actions: inout [Action]) {
        actions.append(
            .send(client, ServerEnvelope(senderId: configuration.serverId, messageId: "e:join", message: .error(error)))
        )
    }
}
