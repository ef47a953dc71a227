import WhaleModel
import Graphiti

/// The resolvers: each one a thin call into ``ModelHub`` (queries read, mutations go through the
/// model state machine, which persists and then sends `resourceUpdate`s).
struct WhalerResolver: Sendable {
    struct AccountIDArguments: Codable, Sendable { let accountID: GQL.ID }
    struct ContactIDArguments: Codable, Sendable { let contactID: GQL.ID }
    struct TaskIDArguments: Codable, Sendable { let taskID: GQL.ID }
    struct AssociatedToArguments: Codable, Sendable { let associatedTo: GQL.ID }
    struct InputArguments<Input: Codable & Sendable>: Codable, Sendable { let input: Input }
    struct SenderInputArguments<Input: Codable & Sendable>: Codable, Sendable {
        let senderID: GQL.ID?
        let input: Input
    }

    func organization(context: GraphQLContext, arguments: NoArguments) throws -> GQL.Organization? {
        try context.hub.organization(context.caller)
    }
    func accounts(context: GraphQLContext, arguments: NoArguments) throws -> [GQL.Account] {
        try context.hub.accounts(context.caller)
    }
    func accountAssignmentEntries(context: GraphQLContext, arguments: AccountIDArguments) throws -> [GQL
        .AccountAssignmentEntry]
    {
        try context.hub.accountAssignmentEntries(accountID: arguments.accountID.value, context.caller)
    }
    func contacts(context: GraphQLContext, arguments: AccountIDArguments) throws -> [GQL.Contact] {
        try context.hub.contacts(accountID: arguments.accountID.value, context.caller)
    }
    func contactAssignmentEntries(context: GraphQLContext, arguments: ContactIDArguments) throws -> [GQL
        .ContactAssignmentEntry]
    {
        try context.hub.contactAssignmentEntries(contactID: arguments.contactID.value, context.caller)
    }
    /// `note(accountID)`: the note's text as the collaboration server holds it now (created on
    /// first read, as the original does).
    func note(context: GraphQLContext, arguments: AccountIDArguments) throws -> GQL.Note {
        let accountID = arguments.accountID.value
        try context.hub.checkAccount(accountID, context.caller)
        return GQL.Note(
            id: GQL.ID(accountID), ownerID: GQL.ID(context.caller.userId), accountID: GQL.ID(accountID),
            content: context.server.noteText(accountID))
    }
    func tasks(context: GraphQLContext, arguments: AssociatedToArguments) throws -> [GQL.Task] {
        try context.hub.tasks(associatedTo: arguments.associatedTo.value, context.caller)
    }
    func taskAssignmentEntries(context: GraphQLContext, arguments: TaskIDArguments) throws -> [GQL.TaskAssignmentEntry]
    {
        try context.hub.taskAssignmentEntries(taskID: arguments.taskID.value, context.caller)
    }

    func createUser(context: GraphQLContext, arguments: InputArguments<GQL.NewUser>) async throws -> GQL.User {
        try await context.hub.createUser(
            arguments.input, context.caller, bcryptCost: context.server.configuration.bcryptCost,
            log: context.mutationLog)
    }
    func createOrganization(context: GraphQLContext, arguments: InputArguments<GQL.NewOrganization>) async throws
        -> GQL.Organization
    {
        try await context.hub.createOrganization(arguments.input, context.caller, log: context.mutationLog)
    }
    func createAccountAssignmentEntry(
        context: GraphQLContext, arguments: SenderInputArguments<GQL.NewAccountAssignmentEntry>
    ) async throws -> GQL.AccountAssignmentEntry {
        try await context.hub.createAccountAssignmentEntry(
            arguments.input, senderID: arguments.senderID?.value, context.caller, log: context.mutationLog)
    }
    func createContactAssignmentEntry(
        context: GraphQLContext, arguments: SenderInputArguments<GQL.NewContactAssignmentEntry>
    ) async throws -> GQL.ContactAssignmentEntry {
        try await context.hub.createContactAssignmentEntry(
            arguments.input, senderID: arguments.senderID?.value, context.caller, log: context.mutationLog)
    }
    func createTaskAssignmentEntry(context: GraphQLContext, arguments: SenderInputArguments<GQL.NewTaskAssignmentEntry>)
        async throws -> GQL.TaskAssignmentEntry
    {
        try await context.hub.createTaskAssignmentEntry(
            arguments.input, senderID: arguments.senderID?.value, context.caller, log: context.mutationLog)
    }
    func saveAccounts(context: GraphQLContext, arguments: SenderInputArguments<[GQL.NewAccount]>) async throws -> [GQL
        .Account]
    {
        try await context.hub.saveAccounts(
            arguments.input, senderID: arguments.senderID?.value, context.caller, log: context.mutationLog)
    }
    func saveContacts(context: GraphQLContext, arguments: SenderInputArguments<[GQL.NewContact]>) async throws -> [GQL
        .Contact]
    {
        try await context.hub.saveContacts(
            arguments.input, senderID: arguments.senderID?.value, context.caller, log: context.mutationLog)
    }
    func saveNote(context: GraphQLContext, arguments: InputArguments<GQL.NewNote>) async throws -> GQL.Note {
        let accountID = arguments.input.accountID.value
        try context.hub.checkAccount(accountID, context.caller)
        let content = try await context.server.saveNote(accountID, content: arguments.input.content)
        return GQL.Note(
            id: GQL.ID(accountID), ownerID: GQL.ID(context.caller.userId), accountID: GQL.ID(accountID),
            content: content)
    }
    func saveTask(context: GraphQLContext, arguments: SenderInputArguments<GQL.SaveTask>) async throws -> GQL.Task {
        try await context.hub.saveTask(
            arguments.input, senderID: arguments.senderID?.value, context.caller, log: context.mutationLog)
    }
    func applyAccountTrackingChanges(context: GraphQLContext, arguments: InputArguments<[GQL.AccountTrackingChange]>)
        async throws -> [GQL.Account]
    {
        try await context.hub.applyAccountTrackingChanges(arguments.input, context.caller, log: context.mutationLog)
    }
}
