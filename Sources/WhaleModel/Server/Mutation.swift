/// The GraphQL mutations of PROTOCOL.md §1, as model input. The three
/// `create…AssignmentEntry` mutations are one case with a ``AssignmentKind``.
///
/// ```swift
/// var card = AccountInput(account)
/// card.state = KanbanState.worked.rawValue
/// let move = Mutation.saveAccounts([card])          // a card moved on the board
/// ```
public enum Mutation: Codable, Hashable, Sendable {
    case saveAccounts([AccountInput])
    case saveContacts([ContactInput])
    case saveTask(TaskInput)
    case applyAccountTrackingChanges([TrackingChange])
    /// `createdAt` comes from the live server's clock (the model has none).
    case createAssignment(
        kind: AssignmentKind, targetId: String, assignedBy: String, assignedTo: String, createdAt: String? = nil)
    case createUser(UserInput)
    /// A new organization and its first (admin) user.
    case createOrganization(id: String?, name: String, admin: UserInput)

    /// The GraphQL field name (`createAssignment` answers to the three entry mutations).
    public var name: String {
        switch self {
        case .saveAccounts: "saveAccounts"
        case .saveContacts: "saveContacts"
        case .saveTask: "saveTask"
        case .applyAccountTrackingChanges: "applyAccountTrackingChanges"
        case .createAssignment(let kind, _, _, _, _):
            switch kind {
            case .account: "createAccountAssignmentEntry"
            case .contact: "createContactAssignmentEntry"
            case .task: "createTaskAssignmentEntry"
            }
        case .createUser: "createUser"
        case .createOrganization: "createOrganization"
        }
    }
}

/// A `resourceUpdate` the mutation caused: which pool, that pool's new `seq`, the record.
public struct PoolUpdate: Codable, Hashable, Sendable {
    public var poolId: String
    public var seq: Int
    public var record: ModelRecord
    public init(poolId: String, seq: Int, record: ModelRecord) {
        self.poolId = poolId
        self.seq = seq
        self.record = record
    }
}

/// The answer to an applied mutation: its place in server order, the records as saved (what the
/// GraphQL mutation returns) and the pool updates it sent, each with its `seq`.
public struct MutationReply: Codable, Hashable, Sendable {
    public var order: Int
    public var records: [ModelRecord]
    public var updates: [PoolUpdate]
    public init(order: Int, records: [ModelRecord], updates: [PoolUpdate]) {
        self.order = order
        self.records = records
        self.updates = updates
    }
}

/// The two page fetches of the app (and of the simulator's clients): the board (the caller's
/// tracked accounts, organization pool) and an account page (its contacts, its tasks that are
/// not deleted, and every assignment entry of the account, its contacts and its tasks: the
/// union of the three `…AssignmentEntries` queries).
public enum ModelQuery: Codable, Hashable, Sendable {
    case board
    case accountPage(accountID: String)
}

/// A page fetch's answer, stamped with the pool's `seq` when it was answered: every update with
/// a higher `seq` is newer than this snapshot.
public struct PoolSnapshot: Codable, Hashable, Sendable {
    public var poolId: String
    public var seq: Int
    public var accounts: [Account]
    public var contacts: [Contact]
    public var tasks: [TaskItem]
    public var assignments: [AssignmentEntry]
    public init(
        poolId: String, seq: Int, accounts: [Account] = [], contacts: [Contact] = [], tasks: [TaskItem] = [],
        assignments: [AssignmentEntry] = []
    ) {
        self.poolId = poolId
        self.seq = seq
        self.accounts = accounts
        self.contacts = contacts
        self.tasks = tasks
        self.assignments = assignments
    }

    /// Every record, sorted by key: what a page fetch gives the client to keep.
    public var records: [ModelRecord] {
        let all: [ModelRecord] =
            accounts.map(ModelRecord.account) + contacts.map(ModelRecord.contact)
            + tasks.map(ModelRecord.task) + assignments.map(ModelRecord.assignment)
        return all.sorted { $0.key < $1.key }
    }

    /// What the page shows, sorted by key: ``records`` without the entries of a task that is not
    /// listed (a deleted one). A ``ModelClient``'s `view` must equal this after quiescence.
    public var shown: [ModelRecord] {
        let listed = Set(tasks.map(\.id))
        return records.filter {
            if case .assignment(let e) = $0, e.kind == .task { listed.contains(e.targetId) } else { true }
        }
    }
}
