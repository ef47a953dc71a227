/// A mutation being applied to a copy of the state: every record it writes, with the pools
/// told about it. Thrown errors leave the real state untouched.
struct Draft {
    struct Write {
        var record: ModelRecord
        var pools: [String]
    }

    var state: ModelState
    let caller: Caller
    var written: [Write] = []
    var credentials: [Credential] = []

    init(server: ModelServer, caller: Caller) {
        state = server.state
        self.caller = caller
    }

    var org: String { caller.organizationId }

    mutating func newId(_ prefix: String) -> String {
        defer { state.nextId += 1 }
        return "\(prefix)-\(state.nextId)"
    }

    mutating func write(_ record: ModelRecord, pools: [String]) {
        state.apply(.record(record))
        written.append(Write(record: record, pools: pools))
    }

    func nonEmpty(_ value: String, _ what: String) throws(ModelError) {
        if value.isEmpty { throw .badInput("\(what) must not be empty") }
    }

    func checkState(_ value: String?, columns: [KanbanState], _ what: String) throws(ModelError) {
        guard let value else { return }
        guard let column = KanbanState(rawValue: value), columns.contains(column) else {
            throw .badInput(
                "\(what) state \(String(reflecting: value)) is not one of \(columns.map(\.rawValue).joined(separator: ", "))"
            )
        }
    }

    func checkUser(_ id: String?, _ what: String) throws(ModelError) {
        guard let id else { return }
        guard state.users[id]?.organizationId == org else { throw .notFound("\(what) user \(id)") }
    }

    func ownAccount(_ id: String) throws(ModelError) -> Account {
        guard let account = state.accounts[id], account.organizationId == org else { throw .notFound("account \(id)") }
        return account
    }

    mutating func apply(_ mutation: Mutation) throws(ModelError) {
        switch mutation {
        case .saveAccounts(let inputs):
            for input in inputs { _ = try saveAccount(input) }
        case .saveContacts(let inputs):
            for input in inputs { try saveContact(input) }
        case .saveTask(let task):
            try saveTask(task)
        case .applyAccountTrackingChanges(let changes):
            for change in changes {
                let account = try saveAccount(change.account)
                write(
                    .tracking(
                        Tracking(userId: caller.userId, accountId: account.id, tracked: change.newState == .tracked)),
                    pools: [org])
            }
        case .createAssignment(let kind, let targetId, let assignedBy, let assignedTo, let createdAt):
            try createAssignment(
                kind, targetId: targetId, assignedBy: assignedBy, assignedTo: assignedTo, createdAt: createdAt)
        case .createUser(let input):
            guard state.users[caller.userId]?.isAdmin == true else { throw .forbidden("only an admin creates users") }
            try createUser(input, organizationId: org, isAdmin: input.isAdmin)
        case .createOrganization(let id, let name, let admin):
            try nonEmpty(name, "organization name")
            if let id, id.isEmpty || state.organizations[id] != nil {
                throw .badInput("organization id \(String(reflecting: id)) is empty or taken")
            }
            let orgId = id ?? newId("org")
            write(.organization(Organization(id: orgId, name: name)), pools: [])
            try createUser(admin, organizationId: orgId, isAdmin: true)
        }
    }

    mutating func saveAccount(_ input: AccountInput) throws(ModelError) -> Account {
        try nonEmpty(input.salesforceID, "salesforceID")
        try checkState(input.state, columns: KanbanState.allCases, "account")
        try checkUser(input.assignedTo, "assignedTo")
        // salesforceID is unique within an organization, so at most one matches (no order leaks).
        let existing = state.accounts.values.first { $0.organizationId == org && $0.salesforceID == input.salesforceID }
        let id: String
        if let existing {
            id = existing.id
        } else if let wanted = input.id, !wanted.isEmpty, state.accounts[wanted] == nil {
            id = wanted
        } else {
            id = newId("acc")
        }
        let account = input.account(id: id, organizationId: org)
        write(.account(account), pools: [org])
        return account
    }

    mutating func saveContact(_ input: ContactInput) throws(ModelError) {
        try nonEmpty(input.salesforceID, "salesforceID")
        try nonEmpty(input.accountID, "accountID")
        _ = try ownAccount(input.accountID)
        try checkState(input.state, columns: KanbanState.contactColumns, "contact")
        try checkUser(input.assignedTo, "assignedTo")
        let existing = state.contacts.values.first {
            $0.salesforceID == input.salesforceID && state.accounts[$0.accountID]?.organizationId == org
        }
        let id: String
        if let existing {
            id = existing.id
        } else if let wanted = input.id, !wanted.isEmpty, state.contacts[wanted] == nil {
            id = wanted
        } else {
            id = newId("con")
        }
        var pools = [input.accountID]
        if let old = existing?.accountID, old != input.accountID { pools.insert(old, at: 0) }
        write(.contact(input.contact(id: id)), pools: pools)
    }

    mutating func saveTask(_ task: TaskItem) throws(ModelError) {
        try nonEmpty(task.id, "task id")
        try nonEmpty(task.associatedTo, "associatedTo")
        _ = try ownAccount(task.associatedTo)
        try checkUser(task.assignedTo, "assignedTo")
        var pools = [task.associatedTo]
        if let existing = state.tasks[task.id] {
            // A task id of another organization is as unknown as any other id there.
            guard state.accounts[existing.associatedTo]?.organizationId == org else {
                throw .notFound("task \(task.id)")
            }
            if existing.associatedTo != task.associatedTo { pools.insert(existing.associatedTo, at: 0) }
        }
        write(.task(task), pools: pools)
    }

    mutating func createAssignment(
        _ kind: AssignmentKind, targetId: String, assignedBy: String, assignedTo: String, createdAt: String?
    ) throws(ModelError) {
        try nonEmpty(targetId, "target id")
        try nonEmpty(assignedBy, "assignedBy")
        try nonEmpty(assignedTo, "assignedTo")
        try checkUser(assignedBy, "assignedBy")
        try checkUser(assignedTo, "assignedTo")
        let target: ModelRecord, pool: String, targetPool: String
        switch kind {
        case .account:
            var account = try ownAccount(targetId)
            account.assignedTo = assignedTo
            (target, pool, targetPool) = (.account(account), account.id, org)
        case .contact:
            guard var contact = state.contacts[targetId], (try? ownAccount(contact.accountID)) != nil else {
                throw .notFound("contact \(targetId)")
            }
            contact.assignedTo = assignedTo
            (target, pool, targetPool) = (.contact(contact), contact.accountID, contact.accountID)
        case .task:
            guard var task = state.tasks[targetId], (try? ownAccount(task.associatedTo)) != nil else {
                throw .notFound("task \(targetId)")
            }
            task.assignedTo = assignedTo
            (target, pool, targetPool) = (.task(task), task.associatedTo, task.associatedTo)
        }
        let entry = AssignmentEntry(
            id: newId("as"), kind: kind, targetId: targetId, assignedBy: assignedBy, assignedTo: assignedTo,
            createdAt: createdAt)
        write(.assignment(entry), pools: [pool])
        write(target, pools: [targetPool])
    }

    mutating func createUser(_ input: UserInput, organizationId: String, isAdmin: Bool) throws(ModelError) {
        try nonEmpty(input.email, "email")
        try nonEmpty(input.passwordHash, "passwordHash")
        if state.credentials.values.contains(where: { $0.email == input.email }) {
            throw .badInput("email \(input.email) is taken")
        }
        if let id = input.id, id.isEmpty || state.users[id] != nil {
            throw .badInput("user id \(String(reflecting: id)) is empty or taken")
        }
        let id = input.id ?? newId("u")
        write(
            .user(
                User(
                    id: id, email: input.email, firstName: input.firstName, lastName: input.lastName, isAdmin: isAdmin,
                    organizationId: organizationId)), pools: [])
        let credential = Credential(userId: id, email: input.email, passwordHash: input.passwordHash)
        state.apply(.credential(credential))
        credentials.append(credential)
    }
}
