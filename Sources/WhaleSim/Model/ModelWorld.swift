import WhaleModel
import WhaleProtocol

/// The model side of a simulated run: the model server (nil while crashed), what it persisted,
/// one ``ModelClient`` per simulated client, and the GraphQL calls in flight.
///
/// GraphQL travels its own path, as HTTP does beside the websocket: each request and each
/// response takes its own delay (drawn from the scenario's delay distribution, from this
/// world's random stream), so answers may overtake each other and the socket's updates: the
/// reordering behind the original's refetch race. Partitions and socket disconnects do not
/// touch it; a request that reaches a crashed server is answered `unavailable`.
struct ModelWorld {
    enum Body {
        case query(ModelQuery)
        case mutate(Mutation)
        case answered(Result<PoolSnapshot, ModelError>)
        case replied(Result<MutationReply, ModelError>)
    }

    /// One GraphQL request or response on its way.
    struct Call {
        var client: Int
        var requestId: String
        var body: Body
    }

    static let organizationId = "org-sim"

    let spec: ModelSpec
    var server: ModelServer?
    let configuration: ModelServer.Configuration
    /// What the server persisted (a restart restores from it).
    var store: ModelState
    var clients: [ModelClient]
    var callers: [Caller]
    /// The organization's accounts as the seed has them (the workload's "Salesforce import" for `track`).
    let seedAccounts: [Account]
    var users: [String]
    /// Calls in flight by slot; the event carries only the slot number.
    var calls: [Call?] = []
    var freeSlots: [Int] = []
    var random: SimRandom
    /// GraphQL messages sent (requests and responses).
    var sent = 0
    /// Past this many messages in the run, model traffic is dropped (an echo storm must end).
    let messageCap: Int
    var capped = false
    /// A pool join's marker, held until the client has taken its `.joined` (client index → envelope).
    var heldMarker: [Int: ServerEnvelope] = [:]
    var nextTask = 1

    init(
        scenario: Scenario, spec: ModelSpec, clientIds: [ClientID], userIds: [String], version: ProtocolVersion,
        faults: FaultSet, random: SimRandom
    ) {
        self.spec = spec
        self.random = random
        users = userIds
        let org = Self.organizationId
        let seed = Self.seed(spec: spec, userIds: userIds)
        seedAccounts = seed.accounts
        configuration = ModelServer.Configuration(serverId: "whalesim-sim", faults: faults)
        let server = ModelServer(configuration: configuration, restoring: seed.changes { "plain:" + $0 })
        self.server = server
        store = server.state
        callers = userIds.map { Caller(userId: $0, organizationId: org) }
        let clientConfig = ModelClient.Configuration(protocolVersion: version, faults: faults)
        clients = clientIds.indices.map { i in
            let page: ModelClient.Page =
                i < spec.boardClients ? .board : .account("acc-\((i - spec.boardClients) % spec.accounts + 1)")
            return ModelClient(
                clientId: clientIds[i], caller: Caller(userId: userIds[i], organizationId: org), page: page,
                configuration: clientConfig)
        }
        messageCap = 5_000 + 10 * max(scenario.ops, 1) * (clientIds.count + 1)
    }

    /// One organization, a user per client, `accounts + 2` accounts with three contacts and two
    /// tasks each; board users track the first `accounts`.
    static func seed(spec: ModelSpec, userIds: [String]) -> ModelSeed {
        let org = organizationId
        var seed = ModelSeed(organizations: [Organization(id: org, name: "Simulated Sales")])
        for (i, u) in userIds.enumerated() {
            seed.users.append(
                .init(
                    id: u, email: "\(u)@sim.test", firstName: "User", lastName: u, isAdmin: i == 0, organizationId: org,
                    password: "pw-\(u)"))
        }
        let columns = KanbanState.allCases
        for a in 1...(spec.accounts + 2) {
            let id = "acc-\(a)"
            seed.accounts.append(
                Account(
                    id: id, organizationId: org, salesforceID: "001SIM\(a)", name: "Account \(a)", industry: "Retail",
                    state: columns[a % columns.count].rawValue))
            for k in 1...3 {
                seed.contacts.append(
                    Contact(
                        id: "con-\(a)-\(k)", accountID: id, salesforceID: "003SIM\(a)x\(k)", firstName: "Contact",
                        lastName: "\(a)-\(k)",
                        state: KanbanState.contactColumns[k % 3].rawValue))
            }
            for k in 1...2 {
                seed.tasks.append(
                    TaskItem(
                        id: "task-\(a)-\(k)", associatedTo: id, description: "Follow up \(k)", done: false,
                        type: TaskType.allCases[k % 3]))
            }
        }
        for u in userIds.prefix(spec.boardClients) {
            for a in 1...spec.accounts { seed.tracking.append(.init(userId: u, accountId: "acc-\(a)")) }
        }
        return seed
    }

    mutating func park(_ call: Call) -> Int {
        if let slot = freeSlots.popLast() {
            calls[slot] = call
            return slot
        }
        calls.append(call)
        return calls.count - 1
    }

    mutating func take(_ slot: Int) -> Call? {
        guard slot < calls.count, let call = calls[slot] else { return nil }
        calls[slot] = nil
        freeSlots.append(slot)
        return call
    }

    /// Every client joined, nothing pending or in flight, the server up, no cap hit.
    var isQuiet: Bool {
        server != nil && !capped && clients.allSatisfy { $0.isQuiet && $0.isJoined }
    }
}

extension ModelClient.Page {
    /// How the history names the page: `board` or `account page <id>`.
    public var name: String {
        switch self {
        case .board: "board"
        case .account(let id): "account page \(id)"
        }
    }
}

extension ServerEnvelope {
    /// A pool update or a pool refusal: the model client's, not the note session's.
    public var isForTheModel: Bool {
        switch message {
        case .resourceUpdate, .poolJoined: true
        case .error: messageId == "e:join"
        default: false
        }
    }
}
