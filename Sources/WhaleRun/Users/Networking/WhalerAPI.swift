import Foundation
import WhaleLoad

/// The Whaler API as the app calls it: REST sign-in and GraphQL at `/query` (PROTOCOL.md §1).
/// Responses are mapped to read-only models.
public struct WhalerAPI: Sendable {
    /// A signed-in user.
    public struct Session: Sendable {
        public let accessToken: String
        public let userId: String
        public let organizationId: String
        /// The organization's users as the sign-in lists them (`response.organization.users`).
        public var organizationUsers: [String] = []
    }

    /// An account as the board shows it.
    public struct AccountRow: Sendable, Hashable {
        public let id: String
        public let salesforceID: String
        public let name: String
        public let state: String?
    }

    public let baseURL: String
    public let client: APIClient

    public init(baseURL: String, client: APIClient) {
        self.baseURL = baseURL
        self.client = client
    }

    public func login(email: String, password: String) async throws(APIError) -> Session {
        let body = APIClient.jsonBody(["email": email, "password": password])
        let json = try await client.json(
            HTTPRequestSpec(
                method: "POST", url: baseURL + "/api/user/login", headers: [("Content-Type", "application/json")],
                body: body), metric: "login")
        guard let envelope = json as? [String: Any], (envelope["code"] as? Int) == 1000,
            let data = envelope["data"] as? [String: Any], let tokens = data["tokens"] as? [String: Any],
            let token = tokens["accessToken"] as? String, let user = data["response"] as? [String: Any],
            let userId = user["id"] as? String
        else {
            client.metrics.error("login")
            throw APIError("login", "sign-in of \(email) refused: \(json)")
        }
        let org = (user["organizationID"] as? String) ?? (user["organizationId"] as? String) ?? ""
        let users = ((user["organization"] as? [String: Any])?["users"] as? [[String: Any]] ?? []).compactMap {
            $0["id"] as? String
        }
        return Session(accessToken: token, userId: userId, organizationId: org, organizationUsers: users)
    }

    /// A GraphQL call; GraphQL errors are thrown with their messages.
    public func graphQL(_ query: String, variables: [String: Any] = [:], token: String) async throws(APIError)
        -> [String: Any]
    {
        try await graphQLResponse(query, variables: variables, token: token)["data"] as? [String: Any] ?? [:]
    }

    /// A GraphQL call's whole response (`data` and `extensions`); `whalesimExtensions` asks the
    /// server for whalesim's extensions (header `Whalesim-Protocol: 2`). GraphQL errors are thrown.
    public func graphQLResponse(
        _ query: String, variables: [String: Any] = [:], token: String, whalesimExtensions: Bool = false,
        countErrors: Bool = true
    ) async throws(APIError) -> [String: Any] {
        let request = graphQLRequest(query, variables: variables, token: token, whalesimExtensions: whalesimExtensions)
        return try graphQLObject(try await client.json(request, metric: "graphql"), countErrors: countErrors)
    }

    /// The POST of a GraphQL call.
    func graphQLRequest(_ query: String, variables: [String: Any], token: String, whalesimExtensions: Bool = false)
        -> HTTPRequestSpec
    {
        let body = APIClient.jsonBody(["query": query, "variables": variables])
        var headers = [("Content-Type", "application/json"), ("Authorization", token)]
        if whalesimExtensions { headers.append(("Whalesim-Protocol", "2")) }
        return HTTPRequestSpec(method: "POST", url: baseURL + "/query", headers: headers, body: body)
    }

    /// A GraphQL response's object; its GraphQL errors thrown with their messages.
    func graphQLObject(_ json: Any, countErrors: Bool = true) throws(APIError) -> [String: Any] {
        guard let object = json as? [String: Any] else { throw APIError("graphql", "not a GraphQL response: \(json)") }
        if let errors = object["errors"] as? [[String: Any]], !errors.isEmpty {
            if countErrors { client.metrics.error("graphql") }
            throw APIError("graphql", errors.compactMap { $0["message"] as? String }.joined(separator: "; "))
        }
        return object
    }

    func accounts(token: String) async throws(APIError) -> [AccountRow] {
        let data = try await graphQL("query { accounts { id salesforceID name state } }", token: token)
        return (data["accounts"] as? [[String: Any]] ?? []).compactMap(Self.accountRow)
    }

    /// An account page's records: its contacts and open tasks (counts, for the page).
    func accountPage(_ accountId: String, token: String) async throws(APIError) -> (contacts: Int, tasks: Int) {
        let data = try await graphQL(
            "query($a: ID!) { contacts(accountID: $a) { id state } tasks(associatedTo: $a) { id done } }",
            variables: ["a": accountId], token: token)
        return ((data["contacts"] as? [Any])?.count ?? 0, (data["tasks"] as? [Any])?.count ?? 0)
    }

    /// `saveAccounts`: upserts by `salesforceID`; returns the saved accounts.
    public func saveAccounts(_ inputs: [[String: Any]], senderID: String, token: String) async throws(APIError)
        -> [AccountRow]
    {
        let data = try await graphQL(
            "mutation($input: [NewAccount!]!, $senderID: ID) { saveAccounts(input: $input, senderID: $senderID) { id salesforceID name state } }",
            variables: ["input": inputs, "senderID": senderID], token: token)
        return (data["saveAccounts"] as? [[String: Any]] ?? []).compactMap(Self.accountRow)
    }

    func track(_ inputs: [[String: Any]], tracked: Bool, token: String) async throws(APIError) {
        let changes = inputs.map { ["account": $0, "newState": tracked ? "tracked" : "untracked"] as [String: Any] }
        _ = try await graphQL(
            "mutation($input: [AccountTrackingChange!]!) { applyAccountTrackingChanges(input: $input) { id } }",
            variables: ["input": changes], token: token)
    }

    static func accountRow(_ o: [String: Any]) -> AccountRow? {
        guard let id = o["id"] as? String, let sf = o["salesforceID"] as? String else { return nil }
        return AccountRow(id: id, salesforceID: sf, name: o["name"] as? String ?? "", state: o["state"] as? String)
    }
}
