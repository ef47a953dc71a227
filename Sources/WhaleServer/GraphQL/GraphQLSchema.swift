import WhaleModel
import Graphiti
import GraphQL

/// What every resolver gets: the signed-in caller and the model, and for a
/// `Whalesim-Protocol: 2` request the log its mutations go to (the response's `extensions`).
struct GraphQLContext: Sendable {
    let caller: Caller
    let hub: ModelHub
    let server: ReferenceServer
    var mutationLog: MutationLog? = nil
}

/// An error a resolver throws; its message becomes the GraphQL error's message.
struct GraphQLResolverError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// The Whaler GraphQL API with the original's names: queries and mutations, argument names,
/// `senderID` echoed in `resourceUpdate`. Every resolver is scoped to the caller's organization.
struct WhalerGraphQLAPI: API {
    let resolver = WhalerResolver()
    let schema: Schema<WhalerResolver, GraphQLContext>

    init() throws {
        schema = try Schema<WhalerResolver, GraphQLContext> {
            Scalar(GQL.ID.self, as: "ID")
            Scalar(GQL.Time.self, as: "Time")

            Type(GQL.User.self, as: "User") {
                Field("id", at: \.id)
                Field("createdAt", at: \.createdAt)
                Field("updatedAt", at: \.updatedAt)
                Field("deletedAt", at: \.deletedAt)
                Field("email", at: \.email)
                Field("password", at: \.password)
                Field("firstName", at: \.firstName)
                Field("lastName", at: \.lastName)
                Field("isAdmin", at: \.isAdmin)
                Field("organizationID", at: \.organizationID)
            }
            Type(GQL.Organization.self, as: "Organization") {
                Field("id", at: \.id)
                Field("createdAt", at: \.createdAt)
                Field("updatedAt", at: \.updatedAt)
                Field("deletedAt", at: \.deletedAt)
                Field("name", at: \.name)
                Field("users", at: \.users)
            }
            Type(GQL.AccountAssignmentEntry.self, as: "AccountAssignmentEntry") {
                Field("id", at: \.id)
                Field("createdAt", at: \.createdAt)
                Field("updatedAt", at: \.updatedAt)
                Field("deletedAt", at: \.deletedAt)
                Field("accountId", at: \.accountId)
                Field("assignedBy", at: \.assignedBy)
                Field("assignedTo", at: \.assignedTo)
            }
            Type(GQL.ContactAssignmentEntry.self, as: "ContactAssignmentEntry") {
                Field("id", at: \.id)
                Field("createdAt", at: \.createdAt)
                Field("updatedAt", at: \.updatedAt)
                Field("deletedAt", at: \.deletedAt)
                Field("contactId", at: \.contactId)
                Field("assignedBy", at: \.assignedBy)
                Field("assignedTo", at: \.assignedTo)
            }
            Type(GQL.TaskAssignmentEntry.self, as: "TaskAssignmentEntry") {
                Field("id", at: \.id)
                Field("createdAt", at: \.createdAt)
                Field("updatedAt", at: \.updatedAt)
                Field("deletedAt", at: \.deletedAt)
                Field("taskId", at: \.taskId)
                Field("assignedBy", at: \.assignedBy)
                Field("assignedTo", at: \.assignedTo)
            }
            Type(GQL.Account.self, as: "Account") {
                Field("id", at: \.id)
                Field("createdAt", at: \.createdAt)
                Field("updatedAt", at: \.updatedAt)
                Field("deletedAt", at: \.deletedAt)
                Field("name", at: \.name)
                Field("salesforceID", at: \.salesforceID)
                Field("salesforceOwnerID", at: \.salesforceOwnerID)
                Field("industry", at: \.industry)
                Field("description", at: \.description)
                Field("numberOfEmployees", at: \.numberOfEmployees)
                Field("annualRevenue", at: \.annualRevenue)
                Field("billingCity", at: \.billingCity)
                Field("billingState", at: \.billingState)
                Field("phone", at: \.phone)
                Field("website", at: \.website)
                Field("type", at: \.type)
                Field("state", at: \.state)
                Field("notes", at: \.notes)
                Field("assignmentEntries", at: \.assignmentEntries)
                Field("assignedTo", at: \.assignedTo)
            }
            Type(GQL.Contact.self, as: "Contact") {
                Field("id", at: \.id)
                Field("createdAt", at: \.createdAt)
                Field("updatedAt", at: \.updatedAt)
                Field("deletedAt", at: \.deletedAt)
                Field("salesforceID", at: \.salesforceID)
                Field("firstName", at: \.firstName)
                Field("lastName", at: \.lastName)
                Field("jobTitle", at: \.jobTitle)
                Field("state", at: \.state)
                Field("email", at: \.email)
                Field("phone", at: \.phone)
                Field("accountID", at: \.accountID)
                Field("assignedTo", at: \.assignedTo)
                Field("assignmentEntries", at: \.assignmentEntries)
            }
            Type(GQL.Task.self, as: "Task") {
                Field("id", at: \.id)
                Field("createdAt", at: \.createdAt)
                Field("updatedAt", at: \.updatedAt)
                Field("deletedAt", at: \.deletedAt)
                Field("associatedTo", at: \.associatedTo)
                Field("description", at: \.description)
                Field("done", at: \.done)
                Field("type", at: \.type)
                Field("dueDate", at: \.dueDate)
                Field("assignedTo", at: \.assignedTo)
            }
            Type(GQL.Note.self, as: "Note") {
                Field("id", at: \.id)
                Field("createdAt", at: \.createdAt)
                Field("updatedAt", at: \.updatedAt)
                Field("deletedAt", at: \.deletedAt)
                Field("ownerID", at: \.ownerID)
                Field("accountID", at: \.accountID)
                Field("content", at: \.content)
            }

            Input(GQL.NewAccount.self, as: "NewAccount") {
                InputField("id", at: \.id)
                InputField("salesforceID", at: \.salesforceID)
                InputField("salesforceOwnerID", at: \.salesforceOwnerID)
                InputField("name", at: \.name)
                InputField("industry", at: \.industry)
                InputField("description", at: \.description)
                InputField("numberOfEmployees", at: \.numberOfEmployees)
                InputField("annualRevenue", at: \.annualRevenue)
                InputField("billingCity", at: \.billingCity)
                InputField("billingState", at: \.billingState)
                InputField("phone", at: \.phone)
                InputField("website", at: \.website)
                InputField("type", at: \.type)
                InputField("state", at: \.state)
                InputField("notes", at: \.notes)
                InputField("assignedTo", at: \.assignedTo)
            }
            Input(GQL.NewContact.self, as: "NewContact") {
                InputField("id", at: \.id)
                InputField("salesforceID", at: \.salesforceID)
                InputField("firstName", at: \.firstName)
                InputField("lastName", at: \.lastName)
                InputField("jobTitle", at: \.jobTitle)
                InputField("state", at: \.state)
                InputField("email", at: \.email)
                InputField("phone", at: \.phone)
                InputField("accountID", at: \.accountID)
                InputField("assignedTo", at: \.assignedTo)
            }
            Input(GQL.SaveTask.self, as: "SaveTask") {
                InputField("id", at: \.id)
                InputField("createdAt", at: \.createdAt)
                InputField("deletedAt", at: \.deletedAt)
                InputField("associatedTo", at: \.associatedTo)
                InputField("description", at: \.description)
                InputField("done", at: \.done)
                InputField("type", at: \.type)
                InputField("dueDate", at: \.dueDate)
                InputField("assignedTo", at: \.assignedTo)
            }
            Input(GQL.NewNote.self, as: "NewNote") {
                InputField("id", at: \.id)
                InputField("accountID", at: \.accountID)
                InputField("content", at: \.content)
            }
            Input(GQL.AccountTrackingChange.self, as: "AccountTrackingChange") {
                InputField("account", at: \.account)
                InputField("newState", at: \.newState)
            }
            Input(GQL.NewAccountAssignmentEntry.self, as: "NewAccountAssignmentEntry") {
                InputField("accountId", at: \.accountId)
                InputField("assignedBy", at: \.assignedBy)
                InputField("assignedTo", at: \.assignedTo)
            }
            Input(GQL.NewContactAssignmentEntry.self, as: "NewContactAssignmentEntry") {
                InputField("contactId", at: \.contactId)
                InputField("assignedBy", at: \.assignedBy)
                InputField("assignedTo", at: \.assignedTo)
            }
            Input(GQL.NewTaskAssignmentEntry.self, as: "NewTaskAssignmentEntry") {
                InputField("taskId", at: \.taskId)
                InputField("assignedBy", at: \.assignedBy)
                InputField("assignedTo", at: \.assignedTo)
            }
            Input(GQL.NewUser.self, as: "NewUser") {
                InputField("email", at: \.email)
                InputField("password", at: \.password)
                InputField("organizationID", at: \.organizationID)
            }
            Input(GQL.NewOrganization.self, as: "NewOrganization") {
                InputField("name", at: \.name)
            }

            Query {
                Field("organization", at: WhalerResolver.organization)
                Field("accounts", at: WhalerResolver.accounts)
                Field("accountAssignmentEntries", at: WhalerResolver.accountAssignmentEntries) {
                    Argument("accountID", at: \.accountID)
                }
                Field("contacts", at: WhalerResolver.contacts) {
                    Argument("accountID", at: \.accountID)
                }
                Field("contactAssignmentEntries", at: WhalerResolver.contactAssignmentEntries) {
                    Argument("contactID", at: \.contactID)
                }
                Field("note", at: WhalerResolver.note) {
                    Argument("accountID", at: \.accountID)
                }
                Field("tasks", at: WhalerResolver.tasks) {
                    Argument("associatedTo", at: \.associatedTo)
                }
                Field("taskAssignmentEntries", at: WhalerResolver.taskAssignmentEntries) {
                    Argument("taskID", at: \.taskID)
                }

                // whalesim's extensions for the load runner (WhalerResolver+Whalesim.swift);
                // every field above is the original's, unchanged.
                Field("whalesimPage", at: WhalerResolver.whalesimPage) {
                    Argument("accountID", at: \.accountID)
                }
                Field("whalesimModelState", at: WhalerResolver.whalesimModelState)
            }
            Mutation {
                Field("createUser", at: WhalerResolver.createUser) {
                    Argument("input", at: \.input)
                }
                Field("createOrganization", at: WhalerResolver.createOrganization) {
                    Argument("input", at: \.input)
                }
                Field("createAccountAssignmentEntry", at: WhalerResolver.createAccountAssignmentEntry) {
                    Argument("senderID", at: \.senderID)
                    Argument("input", at: \.input)
                }
                Field("createContactAssignmentEntry", at: WhalerResolver.createContactAssignmentEntry) {
                    Argument("senderID", at: \.senderID)
                    Argument("input", at: \.input)
                }
                Field("createTaskAssignmentEntry", at: WhalerResolver.createTaskAssignmentEntry) {
                    Argument("senderID", at: \.senderID)
                    Argument("input", at: \.input)
                }
                Field("saveAccounts", at: WhalerResolver.saveAccounts) {
                    Argument("senderID", at: \.senderID)
                    Argument("input", at: \.input)
                }
                Field("saveContacts", at: WhalerResolver.saveContacts) {
                    Argument("senderID", at: \.senderID)
                    Argument("input", at: \.input)
                }
                Field("saveNote", at: WhalerResolver.saveNote) {
                    Argument("input", at: \.input)
                }
                Field("saveTask", at: WhalerResolver.saveTask) {
                    Argument("senderID", at: \.senderID)
                    Argument("input", at: \.input)
                }
                Field("applyAccountTrackingChanges", at: WhalerResolver.applyAccountTrackingChanges) {
                    Argument("input", at: \.input)
                }
            }
        }
    }
}
