import Foundation
import WhaleCrypto
import NIOPosix
import WhaleModel

/// The GraphQL resolvers' side of the hub: model records in, the original schema's types out,
/// and the original's inputs (optional `salesforceID`, `numberOfEmployees` as text...) mapped to
/// the model's mutations. Bad input is a GraphQL error that names the field.
extension ModelHub {
    // MARK: Queries

    func organization(_ caller: Caller) throws -> GQL.Organization {
        let view = try query { try $0.organization(caller) }
        return GQL.Organization(
            id: GQL.ID(view.organization.id), name: view.organization.name, users: view.users.map(Self.user))
    }

    func accounts(_ caller: Caller) throws -> [GQL.Account] {
        let (accounts, entries) = try query { machine in
            let accounts = try machine.accounts(caller)
            var entries: [String: [AssignmentEntry]] = [:]
            for account in accounts {
                entries[account.id] = try machine.accountAssignmentEntries(accountID: account.id, caller)
            }
            return (accounts, entries)
        }
        return accounts.map { Self.account($0, entries: entries[$0.id] ?? []) }
    }

    func accountAssignmentEntries(accountID: String, _ caller: Caller) throws -> [GQL.AccountAssignmentEntry] {
        try query { try $0.accountAssignmentEntries(accountID: accountID, caller) }.map(Self.accountEntry)
    }

    func contacts(accountID: String, _ caller: Caller) throws -> [GQL.Contact] {
        let (contacts, entries) = try query { machine in
            let contacts = try machine.contacts(accountID: accountID, caller)
            var entries: [String: [AssignmentEntry]] = [:]
            for contact in contacts {
                entries[contact.id] = try machine.contactAssignmentEntries(contactID: contact.id, caller)
            }
            return (contacts, entries)
        }
        return contacts.map { Self.contact($0, entries: entries[$0.id] ?? []) }
    }

    func contactAssignmentEntries(contactID: String, _ caller: Caller) throws -> [GQL.ContactAssignmentEntry] {
        try query { try $0.contactAssignmentEntries(contactID: contactID, caller) }.map(Self.contactEntry)
    }

    func tasks(associatedTo: String, _ caller: Caller) throws -> [GQL.Task] {
        try query { try $0.tasks(associatedTo: associatedTo, caller) }.map(Self.task)
    }

    func taskAssignmentEntries(taskID: String, _ caller: Caller) throws -> [GQL.TaskAssignmentEntry] {
        try query { try $0.taskAssignmentEntries(taskID: taskID, caller) }.map(Self.taskEntry)
    }

    /// Throws the model's `notFound` unless the account is the caller's organization's.
    func checkAccount(_ accountID: String, _ caller: Caller) throws {
        _ = try query { try $0.account(accountID, caller) }
    }

    // MARK: Mutations

    func saveAccounts(_ input: [GQL.NewAccount], senderID: String?, _ caller: Caller, log: MutationLog?) async throws
        -> [GQL.Account]
    {
        let inputs = try input.enumerated().map { try accountInput($1, field: "input[\($0)]") }
        let reply = try await mutate(.saveAccounts(inputs), caller: caller, senderID: senderID, log: log)
        return reply.records.compactMap { if case .account(let a) = $0 { Self.account(a, entries: []) } else { nil } }
    }

    func applyAccountTrackingChanges(_ input: [GQL.AccountTrackingChange], _ caller: Caller, log: MutationLog?)
        async throws -> [GQL.Account]
    {
        let changes = try input.enumerated().map { index, change -> TrackingChange in
            guard let state = TrackingChange.NewState(rawValue: change.newState) else {
                throw GraphQLResolverError(
                    message: "input[\(index)].newState: \"\(change.newState)\" is not tracked or untracked")
            }
            return TrackingChange(
                account: try accountInput(change.account, field: "input[\(index)].account"), newState: state)
        }
        let reply = try await mutate(.applyAccountTrackingChanges(changes), caller: caller, senderID: nil, log: log)
        return reply.records.compactMap { if case .account(let a) = $0 { Self.account(a, entries: []) } else { nil } }
    }

    func saveContacts(_ input: [GQL.NewContact], senderID: String?, _ caller: Caller, log: MutationLog?) async throws
        -> [GQL.Contact]
    {
        let inputs = try input.enumerated().map { index, contact -> ContactInput in
            let existing = contact.id.flatMap { id in read { $0.state.contacts[id.value] } }
            guard let accountID = contact.accountID ?? existing?.accountID else {
                throw GraphQLResolverError(message: "input[\(index)].accountID is required for a new contact")
            }
            guard let salesforceID = contact.salesforceID ?? existing?.salesforceID else {
                throw GraphQLResolverError(message: "input[\(index)].salesforceID is required for a new contact")
            }
            return ContactInput(
                id: contact.id?.value, accountID: accountID, salesforceID: salesforceID, firstName: contact.firstName,
                lastName: contact.lastName, jobTitle: contact.jobTitle, state: contact.state, email: contact.email,
                phone: contact.phone, assignedTo: contact.assignedTo)
        }
        let reply = try await mutate(.saveContacts(inputs), caller: caller, senderID: senderID, log: log)
        return reply.records.compactMap { if case .contact(let c) = $0 { Self.contact(c, entries: []) } else { nil } }
    }

    func saveTask(_ input: GQL.SaveTask, senderID: String?, _ caller: Caller, log: MutationLog?) async throws
        -> GQL.Task
    {
        // The original's SaveTask leaves fields out to keep them: start from the stored task.
        let existing = read { $0.state.tasks[input.id.value] }
        guard let associatedTo = input.associatedTo?.value ?? existing?.associatedTo else {
            throw GraphQLResolverError(message: "input.associatedTo is required for a new task")
        }
        let typeName = input.type ?? existing?.type.rawValue ?? TaskType.call.rawValue
        guard let type = TaskType(rawValue: typeName) else {
            throw GraphQLResolverError(
                message:
                    "input.type: \"\(typeName)\" is not one of \(TaskType.allCases.map(\.rawValue).joined(separator: ", "))"
            )
        }
        let task = TaskItem(
            id: input.id.value, associatedTo: associatedTo,
            description: input.description ?? existing?.description ?? "",
            done: input.done ?? existing?.done ?? false, type: type, dueDate: input.dueDate?.value ?? existing?.dueDate,
            assignedTo: input.assignedTo ?? existing?.assignedTo,
            deletedAt: input.deletedAt?.value ?? existing?.deletedAt)
        let reply = try await mutate(.saveTask(task), caller: caller, senderID: senderID, log: log)
        guard let saved = reply.records.lazy.compactMap({ if case .task(let t) = $0 { t } else { nil } }).first else {
            throw GraphQLResolverError(message: "the task was not saved")
        }
        return Self.task(saved)
    }

    func createAccountAssignmentEntry(
        _ input: GQL.NewAccountAssignmentEntry, senderID: String?, _ caller: Caller, log: MutationLog?
    ) async throws -> GQL.AccountAssignmentEntry {
        Self.accountEntry(
            try await assign(
                .account, input.accountId.value, input.assignedBy, input.assignedTo, senderID: senderID, caller,
                log: log))
    }

    func createContactAssignmentEntry(
        _ input: GQL.NewContactAssignmentEntry, senderID: String?, _ caller: Caller, log: MutationLog?
    ) async throws -> GQL.ContactAssignmentEntry {
        Self.contactEntry(
            try await assign(
                .contact, input.contactId.value, input.assignedBy, input.assignedTo, senderID: senderID, caller,
                log: log))
    }

    func createTaskAssignmentEntry(
        _ input: GQL.NewTaskAssignmentEntry, senderID: String?, _ caller: Caller, log: MutationLog?
    ) async throws -> GQL.TaskAssignmentEntry {
        Self.taskEntry(
            try await assign(
                .task, input.taskId.value, input.assignedBy, input.assignedTo, senderID: senderID, caller, log: log))
    }

    private func assign(
        _ kind: AssignmentKind, _ target: String, _ by: String, _ to: String?, senderID: String?, _ caller: Caller,
        log: MutationLog?
    ) async throws -> AssignmentEntry {
        let now = ISO8601DateFormatter().string(from: Date())
        let reply = try await mutate(
            .createAssignment(kind: kind, targetId: target, assignedBy: by, assignedTo: to ?? "", createdAt: now),
            caller: caller, senderID: senderID, log: log)
        guard let entry = reply.records.lazy.compactMap({ if case .assignment(let e) = $0 { e } else { nil } }).first
        else {
            throw GraphQLResolverError(message: "the assignment was not saved")
        }
        return entry
    }

    func createUser(_ input: GQL.NewUser, _ caller: Caller, bcryptCost: UInt8, log: MutationLog?) async throws
        -> GQL.User
    {
        guard input.organizationID.value == caller.organizationId else {
            throw GraphQLResolverError(message: "not found: organization \(input.organizationID.value)")
        }
        guard input.email.contains("@") else {
            throw GraphQLResolverError(message: "input.email: \"\(input.email)\" is not an email address")
        }
        guard input.password.count >= 6 else {
            throw GraphQLResolverError(message: "input.password: at least 6 characters")
        }
        let password = input.password
        let hash = try await NIOThreadPool.singleton.runIfActive { Bcrypt.hash(password, cost: bcryptCost) }
        let reply = try await mutate(
            .createUser(UserInput(email: input.email, firstName: "", lastName: "", isAdmin: false, passwordHash: hash)),
            caller: caller, senderID: nil, log: log)
        guard let user = reply.records.lazy.compactMap({ if case .user(let u) = $0 { u } else { nil } }).first else {
            throw GraphQLResolverError(message: "the user was not saved")
        }
        return Self.user(user)
    }

    func createOrganization(_ input: GQL.NewOrganization, _ caller: Caller, log: MutationLog?) async throws
        -> GQL.Organization
    {
        // The model gives every organization a first admin; the original's input has none, so
        // the new organization's admin is a placeholder that cannot sign in ("!" is no bcrypt hash).
        let slug = input.name.lowercased().filter { $0.isLetter || $0.isNumber }
        let admin = UserInput(
            email: "admin@\(slug.isEmpty ? "org" : slug).invalid", firstName: "Admin", lastName: input.name,
            isAdmin: true, passwordHash: "!")
        let reply = try await mutate(
            .createOrganization(id: nil, name: input.name, admin: admin), caller: caller, senderID: nil, log: log)
        guard
            let organization = reply.records.lazy.compactMap({ if case .organization(let o) = $0 { o } else { nil } })
                .first
        else {
            throw GraphQLResolverError(message: "the organization was not saved")
        }
        let users = reply.records.compactMap { if case .user(let u) = $0 { Self.user(u) } else { nil } }
        return GQL.Organization(id: GQL.ID(organization.id), name: organization.name, users: users)
    }

    // MARK: Mapping

    private func accountInput(_ account: GQL.NewAccount, field: String) throws -> AccountInput {
        let existing = account.id.flatMap { id in read { $0.state.accounts[id.value] } }
        guard let salesforceID = account.salesforceID ?? existing?.salesforceID else {
            throw GraphQLResolverError(message: "\(field).salesforceID is required for a new account")
        }
        var employees: Int?
        if let text = account.numberOfEmployees, !text.isEmpty {
            guard let number = Int(text) else {
                throw GraphQLResolverError(message: "\(field).numberOfEmployees: \"\(text)\" is not a number")
            }
            employees = number
        }
        return AccountInput(
            id: account.id?.value, salesforceID: salesforceID, salesforceOwnerID: account.salesforceOwnerID,
            name: account.name,
            industry: account.industry, description: account.description, numberOfEmployees: employees,
            annualRevenue: account.annualRevenue, billingCity: account.billingCity, billingState: account.billingState,
            phone: account.phone, website: account.website, type: account.type, state: account.state,
            assignedTo: account.assignedTo)
    }

    static func user(_ user: User) -> GQL.User {
        GQL.User(
            id: GQL.ID(user.id), email: user.email, firstName: user.firstName, lastName: user.lastName,
            isAdmin: user.isAdmin,
            organizationID: GQL.ID(user.organizationId))
    }

    static func account(_ account: Account, entries: [AssignmentEntry]) -> GQL.Account {
        GQL.Account(
            id: GQL.ID(account.id), name: account.name, salesforceID: account.salesforceID,
            salesforceOwnerID: account.salesforceOwnerID,
            industry: account.industry, description: account.description,
            numberOfEmployees: account.numberOfEmployees.map(String.init),
            annualRevenue: account.annualRevenue, billingCity: account.billingCity, billingState: account.billingState,
            phone: account.phone, website: account.website, type: account.type, state: account.state, notes: nil,
            assignmentEntries: entries.map(accountEntry), assignedTo: account.assignedTo)
    }

    static func contact(_ contact: Contact, entries: [AssignmentEntry]) -> GQL.Contact {
        GQL.Contact(
            id: GQL.ID(contact.id), salesforceID: contact.salesforceID, firstName: contact.firstName,
            lastName: contact.lastName,
            jobTitle: contact.jobTitle, state: contact.state, email: contact.email, phone: contact.phone,
            accountID: contact.accountID,
            assignedTo: contact.assignedTo, assignmentEntries: entries.map(contactEntry))
    }

    static func task(_ task: TaskItem) -> GQL.Task {
        GQL.Task(
            id: GQL.ID(task.id), deletedAt: task.deletedAt.map(GQL.Time.init), associatedTo: GQL.ID(task.associatedTo),
            description: task.description, done: task.done, type: task.type.rawValue,
            dueDate: task.dueDate.map(GQL.Time.init),
            assignedTo: task.assignedTo)
    }

    static func accountEntry(_ entry: AssignmentEntry) -> GQL.AccountAssignmentEntry {
        GQL.AccountAssignmentEntry(
            id: GQL.ID(entry.id), createdAt: entry.createdAt.map(GQL.Time.init) ?? .epoch,
            accountId: GQL.ID(entry.targetId),
            assignedBy: entry.assignedBy, assignedTo: entry.assignedTo)
    }

    static func contactEntry(_ entry: AssignmentEntry) -> GQL.ContactAssignmentEntry {
        GQL.ContactAssignmentEntry(
            id: GQL.ID(entry.id), createdAt: entry.createdAt.map(GQL.Time.init) ?? .epoch,
            contactId: GQL.ID(entry.targetId),
            assignedBy: entry.assignedBy, assignedTo: entry.assignedTo)
    }

    static func taskEntry(_ entry: AssignmentEntry) -> GQL.TaskAssignmentEntry {
        GQL.TaskAssignmentEntry(
            id: GQL.ID(entry.id), createdAt: entry.createdAt.map(GQL.Time.init) ?? .epoch,
            taskId: GQL.ID(entry.targetId),
            assignedBy: entry.assignedBy, assignedTo: entry.assignedTo)
    }
}
