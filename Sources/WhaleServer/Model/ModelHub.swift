import Foundation
import WhaleCrypto
import Logging
import NIOConcurrencyHelpers
import WhaleModel
import WhaleProtocol

/// The live side of the Whaler model: one ``ModelServer`` state machine behind a lock, its
/// changes committed through the group committer before its `resourceUpdate`s go to the pools'
/// sockets and before the mutation is answered. Seeds the database from the fixture file the
/// first time it starts on an empty database.
final class ModelHub: Sendable {
    private let machine: NIOLockedValueBox<ModelServer>
    private let committer: GroupCommitter
    private let requestCounter = NIOLockedValueBox(0)
    /// The `ack-before-durable` catalog fault: answer without waiting for the commit.
    private let ackBeforeDurable: Bool
    /// The `note-id-prefix-match` catalog fault: authorize ids by their first 24 characters.
    private let prefixMatch: Bool
    let initialNoteTexts: [String: String]
    let logger: Logger
    /// Counts each mutation applied (`whalesim_mutations_total`).
    private let mutationsApplied: Counter
    /// Set once the server exists (the hub is built first; the server delivers its sends).
    private let deliver = NIOLockedValueBox<(@Sendable ([(ClientID, ServerEnvelope)]) -> Void)?>(nil)

    init(
        storage: any ServerStorage, committer: GroupCommitter, configuration: ServerConfiguration, serverId: String,
        logger: Logger, applied: Counter
    ) throws {
        self.committer = committer
        mutationsApplied = applied
        self.logger = logger
        ackBeforeDurable = configuration.faults.contains(.ackBeforeDurable)
        prefixMatch = configuration.faults.contains(.noteIdPrefixMatch)
        let stored = try storage.loadRecords()
        let seed = try configuration.fixtures.map { try ModelSeed.load(from: $0) }
        // Notes start empty (created on first read, as the original's are).
        initialNoteTexts = [:]
        if stored.isEmpty, let seed {
            // First start on this database: hash the seed's passwords and store everything.
            let changes = seed.changes(hashing: { Bcrypt.hash($0, cost: configuration.bcryptCost) })
            try storage.write(StorageBatch(records: try changes.map(StoredRecord.init(change:))))
            machine = NIOLockedValueBox(
                ModelServer(configuration: .init(serverId: serverId, faults: configuration.faults), restoring: changes))
            logger.info(
                "seeded the model",
                metadata: ["records": "\(changes.count)", "fixtures": "\(configuration.fixtures?.path ?? "-")"])
        } else {
            let changes = try stored.map { try $0.modelChange() }
            machine = NIOLockedValueBox(
                ModelServer(configuration: .init(serverId: serverId, faults: configuration.faults), restoring: changes))
        }
    }

    func attach(deliver: @escaping @Sendable ([(ClientID, ServerEnvelope)]) -> Void) {
        self.deliver.withLockedValue { $0 = deliver }
    }

    // MARK: Identity and authorization

    func credential(email: String) -> Credential? { machine.withLockedValue { $0.credential(email: email) } }

    func caller(userId: String) -> Caller? {
        machine.withLockedValue { $0.user(id: userId) }.map { Caller(userId: $0.id, organizationId: $0.organizationId) }
    }

    /// A pool is an organization id or an account id; it must be the caller's organization's.
    func poolBelongs(_ poolId: String, to caller: Caller) -> Bool {
        if prefixMatch, poolId != caller.organizationId { return ownsByPrefix(poolId, caller) }
        return machine.withLockedValue {
            $0.state.accounts[poolId]?.organizationId == caller.organizationId || poolId == caller.organizationId
        }
    }

    /// A note is an account's; the account must be in the caller's organization. The model's
    /// `authorizeNote` decides, so the rule the model's tests pin is the one the socket enforces.
    func noteBelongs(_ accountId: String, to caller: Caller) -> Bool {
        if prefixMatch { return ownsByPrefix(accountId, caller) }
        return machine.withLockedValue { (try? $0.authorizeNote(accountId, caller)) != nil }
    }

    /// The `note-id-prefix-match` defect: an id is the caller's when one of its organization's
    /// accounts shares its first 24 characters (as a truncated index or a short-id cache would).
    private func ownsByPrefix(_ id: String, _ caller: Caller) -> Bool {
        machine.withLockedValue { machine in
            machine.state.accounts.values.contains {
                $0.organizationId == caller.organizationId && $0.id.prefix(24) == id.prefix(24)
            }
        }
    }

    /// The REST login's `data.response`: the user, with its organization and that organization's users.
    func userResponse(userId: String) -> [String: Any]? {
        machine.withLockedValue { machine -> [String: Any]? in
            guard let user = machine.user(id: userId) else { return nil }
            let organization = machine.state.organizations[user.organizationId]
            let users = ModelState.sorted(machine.state.users) { $0.organizationId == user.organizationId }.map(
                Self.restUser)
            var response = Self.restUser(user)
            response["organization"] =
                [
                    "id": user.organizationId, "name": organization?.name ?? "", "users": users,
                    "createdAt": GQL.Time.epoch.value, "updatedAt": GQL.Time.epoch.value, "deletedAt": NSNull(),
                ] as [String: Any]
            return response
        }
    }

    private static func restUser(_ user: User) -> [String: Any] {
        [
            "id": user.id, "email": user.email, "password": "", "firstName": user.firstName, "lastName": user.lastName,
            "isAdmin": user.isAdmin, "organizationId": user.organizationId,
            "createdAt": GQL.Time.epoch.value, "updatedAt": GQL.Time.epoch.value, "deletedAt": NSNull(),
        ]
    }

    // MARK: Pools

    func joinPool(_ connection: SocketConnection) {
        guard let poolId = connection.poolId else { return }
        run(
            .joinPool(
                connection.id, poolId: poolId, caller: connection.caller, protocolVersion: connection.protocolVersion))
    }

    func leavePool(_ client: ClientID) { run(.leavePool(client)) }

    /// Feeds an event that answers nothing (pool membership): its sends go out at once.
    private func run(_ event: ModelServer.Event) {
        let actions = machine.withLockedValue { $0.handle(event) }
        var sends: [(ClientID, ServerEnvelope)] = []
        for case .send(let client, let envelope) in actions { sends.append((client, envelope)) }
        if !sends.isEmpty { deliver.withLockedValue { $0 }?(sends) }
    }

    // MARK: Mutations

    /// Runs a mutation: persisted, then broadcast, then answered. Throws the model's refusal.
    /// With a `log` (a `Whalesim-Protocol: 2` request), an applied mutation is also noted there:
    /// its reply and the lines of the records it persisted.
    func mutate(_ mutation: Mutation, caller: Caller, senderID: String?, log: MutationLog?) async throws
        -> MutationReply
    {
        let requestId =
            "r"
            + String(
                requestCounter.withLockedValue {
                    $0 += 1; return $0
                })
        // Under the lock: the state machine's order is the commit order and the send order.
        let (ticket, sends, reply, persisted) = machine.withLockedValue {
            machine -> (
                GroupCommitter.Ticket?, [(ClientID, ServerEnvelope)], Result<MutationReply, ModelError>?, [ModelRecord]
            ) in
            var batch = StorageBatch()
            var sends: [(ClientID, ServerEnvelope)] = []
            var reply: Result<MutationReply, ModelError>?
            var persisted: [ModelRecord] = []
            for action in machine.handle(.mutate(requestId: requestId, caller: caller, senderID: senderID, mutation)) {
                switch action {
                case .persist(let changes):
                    batch.records += changes.compactMap { try? StoredRecord(change: $0) }
                    if log != nil { for case .record(let record) in changes { persisted.append(record) } }
                case .send(let client, let envelope): sends.append((client, envelope))
                case .reply(_, let result): reply = result
                }
            }
            return (batch.isEmpty ? nil : committer.enqueue(batch), sends, reply, persisted)
        }
        // The `ack-before-durable` fault answers as soon as the commit is queued.
        if let ticket, !ackBeforeDurable { try await committer.waitDurable(ticket) }
        if !sends.isEmpty { deliver.withLockedValue { $0 }?(sends) }
        guard let reply else { throw GraphQLResolverError(message: "the model gave no answer") }
        let applied = try reply.mapError { GraphQLResolverError(message: $0.description) }.get()
        // Encoded outside the lock: only the runner's requests pay for it.
        mutationsApplied.increment()
        log?.append(MutationLog.Entry(reply: applied, written: persisted.map(\.line).sorted()))
        return applied
    }

    /// A query under the lock; a refusal becomes the GraphQL error's message.
    func query<T>(_ body: (ModelServer) throws -> T) throws -> T {
        do { return try machine.withLockedValue { try body($0) } } catch let error as ModelError {
            throw GraphQLResolverError(message: error.description)
        }
    }

    /// A read of the state under the lock.
    func read<T>(_ body: (ModelServer) -> T) -> T { machine.withLockedValue { body($0) } }
}
