extension ModelServer {
    /// The caller's user, if the caller is who it says (an existing user of that organization).
    public func member(_ caller: Caller) throws(ModelError) -> User {
        guard let user = state.users[caller.userId], user.organizationId == caller.organizationId,
            state.organizations[caller.organizationId] != nil
        else {
            throw .unauthorized("unknown user \(caller.userId) in organization \(caller.organizationId)")
        }
        return user
    }

    /// An account of the caller's organization; another organization's is `notFound` too.
    public func account(_ id: String, _ caller: Caller) throws(ModelError) -> Account {
        _ = try member(caller)
        guard let account = state.accounts[id], account.organizationId == caller.organizationId else {
            throw .notFound("account \(id)")
        }
        return account
    }

    public func contact(_ id: String, _ caller: Caller) throws(ModelError) -> Contact {
        guard let contact = state.contacts[id], (try? account(contact.accountID, caller)) != nil else {
            _ = try member(caller)
            throw .notFound("contact \(id)")
        }
        return contact
    }

    public func task(_ id: String, _ caller: Caller) throws(ModelError) -> TaskItem {
        guard let task = state.tasks[id], (try? account(task.associatedTo, caller)) != nil else {
            _ = try member(caller)
            throw .notFound("task \(id)")
        }
        return task
    }

    // MARK: The GraphQL queries

    /// `organization`: the caller's organization with its users.
    public func organization(_ caller: Caller) throws(ModelError) -> OrganizationView {
        _ = try member(caller)
        let users = ModelState.sorted(state.users) { $0.organizationId == caller.organizationId }
        return OrganizationView(organization: state.organizations[caller.organizationId]!, users: users)
    }

    /// `accounts`: the caller's tracked accounts, sorted by id.
    public func accounts(_ caller: Caller) throws(ModelError) -> [Account] {
        _ = try member(caller)
        return (state.tracked[caller.userId] ?? []).compactMap { state.accounts[$0] }.filter {
            $0.organizationId == caller.organizationId
        }
    }

    /// `contacts(accountID)`, sorted by id.
    public func contacts(accountID: String, _ caller: Caller) throws(ModelError) -> [Contact] {
        _ = try account(accountID, caller)
        return ModelState.sorted(state.contacts) { $0.accountID == accountID }
    }

    /// `tasks(associatedTo)`: the account's tasks that are not deleted, sorted by id.
    public func tasks(associatedTo accountID: String, _ caller: Caller) throws(ModelError) -> [TaskItem] {
        _ = try account(accountID, caller)
        return ModelState.sorted(state.tasks) { $0.associatedTo == accountID && !$0.isDeleted }
    }

    public func accountAssignmentEntries(accountID: String, _ caller: Caller) throws(ModelError) -> [AssignmentEntry] {
        _ = try account(accountID, caller)
        return entries(.account, accountID)
    }

    public func contactAssignmentEntries(contactID: String, _ caller: Caller) throws(ModelError) -> [AssignmentEntry] {
        _ = try contact(contactID, caller)
        return entries(.contact, contactID)
    }

    public func taskAssignmentEntries(taskID: String, _ caller: Caller) throws(ModelError) -> [AssignmentEntry] {
        _ = try task(taskID, caller)
        return entries(.task, taskID)
    }

    func entries(_ kind: AssignmentKind, _ targetId: String) -> [AssignmentEntry] {
        ModelState.sorted(state.assignments) { $0.kind == kind && $0.targetId == targetId }
    }

    /// The credential to check a login against (the live server compares the bcrypt hash).
    public func credential(email: String) -> Credential? {
        ModelState.sorted(state.credentials) { $0.email == email }.first
    }

    public func user(id: String) -> User? { state.users[id] }

    /// Whether the caller may open a note (protocol 2): a note's resource id is its account's
    /// id, so it must be an account of the caller's organization. The live server asks this
    /// before it hands a `resourceConnection` to `CollabServer`, which knows no organizations.
    public func authorizeNote(_ resourceId: String, _ caller: Caller) throws(ModelError) {
        _ = try account(resourceId, caller)
    }

    /// A pool's current `seq` (0 before its first update).
    public func poolSeq(_ poolId: String) -> Int { state.poolSeqs[poolId] ?? 0 }

    /// The pool an account-page record travels in: its account's id.
    public func accountPool(of record: ModelRecord) -> String? {
        switch record {
        case .contact(let c): c.accountID
        case .task(let t): t.associatedTo
        case .assignment(let e):
            switch e.kind {
            case .account: e.targetId
            case .contact: state.contacts[e.targetId]?.accountID
            case .task: state.tasks[e.targetId]?.associatedTo
            }
        default: nil
        }
    }

    // MARK: Page fetches

    /// A page fetch stamped with its pool's `seq` (``PoolSnapshot``). An account page's answer
    /// carries every assignment entry of the pool, those of deleted tasks too: the page hides
    /// them (``PoolSnapshot/shown``), but it must keep them, since a deleted task comes back when
    /// someone saves it again with no `deletedAt` (a `saveTask` replaces the whole task), and
    /// nothing sends its entries again then.
    public func answer(_ query: ModelQuery, _ caller: Caller) throws(ModelError) -> PoolSnapshot {
        switch query {
        case .board:
            return PoolSnapshot(
                poolId: caller.organizationId, seq: poolSeq(caller.organizationId), accounts: try accounts(caller))
        case .accountPage(let accountID):
            let contacts = try contacts(accountID: accountID, caller)
            let tasks = ModelState.sorted(state.tasks) { $0.associatedTo == accountID && !$0.isDeleted }
            let assignments = ModelState.sorted(state.assignments) { accountPool(of: .assignment($0)) == accountID }
            return PoolSnapshot(
                poolId: accountID, seq: poolSeq(accountID), contacts: contacts, tasks: tasks, assignments: assignments)
        }
    }
}
