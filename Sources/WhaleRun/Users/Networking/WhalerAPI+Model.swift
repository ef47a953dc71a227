import Foundation
import NIOCore
import NIOPosix
import WhaleModel

/// The model side of the Whaler API as a ``ModelClient`` needs it: the app's own mutations
/// (`saveAccounts`, `saveContacts`, `saveTask`, `create…AssignmentEntry`,
/// `applyAccountTrackingChanges`) with whalesim's reply extension (the mutation's server order,
/// its pool updates with their `seq`, the records it wrote), and the extension queries
/// `whalesimPage` (a page stamped with its pool's `seq`) and `whalesimModelState` (the
/// organization's records, for the model checker's final state).
extension WhalerAPI {
    /// A mutation as the server answered it: the reply, and the record lines it persisted.
    struct AppliedMutation: Sendable {
        var reply: MutationReply
        var written: [String]
    }

    /// Whether the server offers whalesim's GraphQL extensions (an original server does not).
    func offersModelExtensions(token: String) async -> Bool {
        (try? await graphQLResponse("query { whalesimModelState }", token: token, countErrors: false)) != nil
    }

    /// A page fetch: the board (`accountID` nil) or an account's page.
    func page(accountID: String?, token: String) async throws(APIError) -> PoolSnapshot {
        let data = try await graphQL(Self.pageQuery, variables: Self.pageVariables(accountID), token: token)
        return try Self.snapshot(fromPage: data)
    }

    /// A page fetch with no task waiting for it: `then` gets the page on an event loop of
    /// `group` (not on the HTTP thread, which would decode it ahead of every other transfer).
    /// A server restart sends every model page of a run here at once, up to 900 in flight in
    /// the soak, and a task per fetch (its stack slabs for each async call down to the
    /// executor, some 4 to 5 KB) was a third of the restart's peak (issue 21).
    func startPage(
        accountID: String?, token: String, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        then: @escaping @Sendable (Result<PoolSnapshot, APIError>) -> Void
    ) {
        let request = graphQLRequest(Self.pageQuery, variables: Self.pageVariables(accountID), token: token)
        client.start(request, metric: "graphql") { [self] outcome in
            group.next().execute {
                do throws(APIError) {
                    let object = try graphQLObject(try client.json(of: try outcome.get(), for: request))
                    then(.success(try Self.snapshot(fromPage: object["data"] as? [String: Any] ?? [:])))
                } catch {
                    then(.failure(error))
                }
            }
        }
    }

    private static let pageQuery = "query($a: ID) { whalesimPage(accountID: $a) }"
    private static func pageVariables(_ accountID: String?) -> [String: Any] { accountID.map { ["a": $0] } ?? [:] }

    /// The snapshot a `whalesimPage` answer's `data` carries (as a JSON string).
    private static func snapshot(fromPage data: [String: Any]) throws(APIError) -> PoolSnapshot {
        guard let text = data["whalesimPage"] as? String,
            let snapshot = try? JSONDecoder().decode(PoolSnapshot.self, from: Data(text.utf8))
        else {
            throw APIError(
                "graphql", "whalesimPage: not a pool snapshot: \(String(describing: data["whalesimPage"]).prefix(200))")
        }
        return snapshot
    }

    /// Every model record of the caller's organization, as "key json" lines.
    func modelState(token: String) async throws(APIError) -> [String] {
        let data = try await graphQL("query { whalesimModelState }", token: token)
        guard let lines = data["whalesimModelState"] as? [String] else {
            throw APIError("graphql", "whalesimModelState: not a list of records")
        }
        return lines
    }

    /// Runs a model mutation through the app's GraphQL mutation; the reply comes from the extension.
    func mutate(_ mutation: Mutation, senderID: String, token: String) async throws(APIError) -> AppliedMutation {
        guard let (query, variables) = Self.request(for: mutation, senderID: senderID) else {
            throw APIError("model", "\(mutation.name) is not a workload mutation")
        }
        let response = try await graphQLResponse(query, variables: variables, token: token, whalesimExtensions: true)
        guard let ext = response["extensions"] as? [String: Any], let whalesim = ext["whalesim"] as? [String: Any],
            let entries = whalesim["mutations"] as? [[String: Any]], let entry = entries.first,
            let replyObject = entry["reply"], let written = entry["written"] as? [String],
            let data = try? JSONSerialization.data(withJSONObject: replyObject),
            let reply = try? JSONDecoder().decode(MutationReply.self, from: data)
        else {
            throw APIError("graphql", "\(mutation.name): the answer carries no whalesim reply extension")
        }
        return AppliedMutation(reply: reply, written: written.sorted())
    }

    /// The GraphQL document and variables of the app's call for `mutation`.
    static func request(for mutation: Mutation, senderID: String) -> (String, [String: Any])? {
        switch mutation {
        case .saveAccounts(let inputs):
            return (
                "mutation($input: [NewAccount!]!, $senderID: ID) { saveAccounts(input: $input, senderID: $senderID) { id } }",
                ["input": inputs.map(accountVariables), "senderID": senderID]
            )
        case .saveContacts(let inputs):
            return (
                "mutation($input: [NewContact!]!, $senderID: ID) { saveContacts(input: $input, senderID: $senderID) { id } }",
                ["input": inputs.map(contactVariables), "senderID": senderID]
            )
        case .saveTask(let t):
            // `createdAt` is required by the original's SaveTask input (`Time!`); the app sends the
            // time of the save. Without it every saveTask was a schema error.
            var o: [String: Any] = [
                "id": t.id, "createdAt": Self.timestamp(), "associatedTo": t.associatedTo, "description": t.description,
                "done": t.done, "type": t.type.rawValue,
            ]
            if let v = t.dueDate { o["dueDate"] = v }
            if let v = t.assignedTo { o["assignedTo"] = v }
            if let v = t.deletedAt { o["deletedAt"] = v }
            return (
                "mutation($input: SaveTask!, $senderID: ID) { saveTask(input: $input, senderID: $senderID) { id } }",
                ["input": o, "senderID": senderID]
            )
        case .applyAccountTrackingChanges(let changes):
            let input = changes.map {
                ["account": accountVariables($0.account), "newState": $0.newState.rawValue] as [String: Any]
            }
            return (
                "mutation($input: [AccountTrackingChange!]!) { applyAccountTrackingChanges(input: $input) { id } }",
                ["input": input]
            )
        case .createAssignment(let kind, let target, let by, let to, _):
            let (type, idField) =
                switch kind {
                case .account: ("NewAccountAssignmentEntry", "accountId")
                case .contact: ("NewContactAssignmentEntry", "contactId")
                case .task: ("NewTaskAssignmentEntry", "taskId")
                }
            return (
                "mutation($input: \(type)!, $senderID: ID) { \(mutation.name)(input: $input, senderID: $senderID) { id } }",
                ["input": [idField: target, "assignedBy": by, "assignedTo": to], "senderID": senderID]
            )
        case .createUser, .createOrganization:
            return nil
        }
    }

    static func accountVariables(_ a: AccountInput) -> [String: Any] {
        var o: [String: Any] = ["salesforceID": a.salesforceID, "name": a.name]
        let optional: [(String, String?)] = [
            ("id", a.id), ("salesforceOwnerID", a.salesforceOwnerID), ("industry", a.industry),
            ("description", a.description), ("numberOfEmployees", a.numberOfEmployees.map(String.init)),
            ("annualRevenue", a.annualRevenue), ("billingCity", a.billingCity), ("billingState", a.billingState),
            ("phone", a.phone), ("website", a.website), ("type", a.type), ("state", a.state),
            ("assignedTo", a.assignedTo),
        ]
        for (k, v) in optional { if let v { o[k] = v } }
        return o
    }

    static func contactVariables(_ c: ContactInput) -> [String: Any] {
        var o: [String: Any] = [
            "salesforceID": c.salesforceID, "accountID": c.accountID, "firstName": c.firstName, "lastName": c.lastName,
        ]
        let optional: [(String, String?)] = [
            ("id", c.id), ("jobTitle", c.jobTitle), ("state", c.state), ("email", c.email),
            ("phone", c.phone), ("assignedTo", c.assignedTo),
        ]
        for (k, v) in optional { if let v { o[k] = v } }
        return o
    }
}

extension WhalerAPI {
    /// Now as the app's RFC 3339 `Time` (UTC, whole seconds).
    static func timestamp() -> String { ISO8601DateFormatter().string(from: Date()) }
}
