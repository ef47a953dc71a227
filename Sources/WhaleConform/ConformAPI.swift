import Foundation
import WhaleLoad

/// The Whaler HTTP API as the cases call it: REST sign-in and GraphQL at `/query`
/// (PROTOCOL.md §1), straight on a WhaleLoad executor. The suite speaks the wire protocol itself
/// and does not borrow the load runner's app-shaped client, so `conform` does not link the
/// runner; its errors read as the runner's do (`kind: message`).
struct ConformAPI: Sendable {
    /// A signed-in user.
    struct Session: Sendable {
        let accessToken: String
        let userId: String
        let organizationId: String
        /// `data.tokens.refreshToken` of the sign-in, when it gave one.
        var refreshToken: String? = nil
    }

    /// A call that did not give what the case needs: `kind` (`http:500`, `graphql`, `login`,
    /// `transport:timeout`...) and why.
    struct Failure: Error, CustomStringConvertible, Sendable {
        let kind: String
        let message: String
        init(_ kind: String, _ message: String) {
            self.kind = kind
            self.message = message
        }
        var description: String { "\(kind): \(message)" }
    }

    let baseURL: String
    let executor: any HTTPExecutor
    var timeout: Duration = .seconds(10)

    /// Sends the request; a transport failure is thrown by kind.
    func send(_ request: HTTPRequestSpec) async throws(Failure) -> HTTPResult {
        do { return try await executor.execute(request, timeout: timeout) } catch {
            throw Failure("transport:\(error.kind.rawValue)", error.message)
        }
    }

    /// The parsed JSON body of a 2xx answer to `request`.
    func json(_ request: HTTPRequestSpec) async throws(Failure) -> Any {
        let result = try await send(request)
        guard (200..<300).contains(result.status) else {
            throw Failure(
                "http:\(result.status)",
                "\(request.method) \(request.url) answered \(result.status): \(result.text.prefix(300))")
        }
        do {
            return try JSONSerialization.jsonObject(with: Data(result.body), options: [.fragmentsAllowed])
        } catch {
            throw Failure(
                "http:bad-json", "\(request.method) \(request.url): the body is not JSON: \(result.text.prefix(200))")
        }
    }

    func login(email: String, password: String) async throws(Failure) -> Session {
        let body = Self.jsonBody(["email": email, "password": password])
        let request = HTTPRequestSpec(
            method: "POST", url: baseURL + "/api/user/login",
            headers: [("Content-Type", "application/json")], body: body)
        let json = try await json(request)
        guard let envelope = json as? [String: Any], (envelope["code"] as? Int) == 1000,
            let data = envelope["data"] as? [String: Any], let tokens = data["tokens"] as? [String: Any],
            let token = tokens["accessToken"] as? String, let user = data["response"] as? [String: Any],
            let userId = user["id"] as? String
        else {
            throw Failure("login", "sign-in of \(email) refused: \(json)")
        }
        let org = (user["organizationID"] as? String) ?? (user["organizationId"] as? String) ?? ""
        return Session(
            accessToken: token, userId: userId, organizationId: org, refreshToken: tokens["refreshToken"] as? String)
    }

    /// A GraphQL call's `data`; GraphQL errors are thrown with their messages.
    func graphQL(_ query: String, variables: [String: Any] = [:], token: String) async throws(Failure) -> [String: Any]
    {
        try await graphQLResponse(query, variables: variables, token: token)["data"] as? [String: Any] ?? [:]
    }

    /// A GraphQL call's whole response; GraphQL errors are thrown with their messages.
    func graphQLResponse(_ query: String, variables: [String: Any] = [:], token: String) async throws(Failure)
        -> [String: Any]
    {
        let body = Self.jsonBody(["query": query, "variables": variables])
        let headers = [("Content-Type", "application/json"), ("Authorization", token)]
        let json = try await json(
            HTTPRequestSpec(method: "POST", url: baseURL + "/query", headers: headers, body: body))
        guard let object = json as? [String: Any] else { throw Failure("graphql", "not a GraphQL response: \(json)") }
        if let errors = object["errors"] as? [[String: Any]], !errors.isEmpty {
            throw Failure("graphql", errors.compactMap { $0["message"] as? String }.joined(separator: "; "))
        }
        return object
    }

    /// `saveAccounts`: upserts by `salesforceID`; the saved accounts' ids and Salesforce ids.
    func saveAccounts(
        _ inputs: [[String: Any]], senderID: String,
        token: String
    ) async throws(Failure) -> [(id: String, salesforceID: String)] {
        let query =
            "mutation($input: [NewAccount!]!, $senderID: ID) "
            + "{ saveAccounts(input: $input, senderID: $senderID) { id salesforceID name state } }"
        let data = try await graphQL(query, variables: ["input": inputs, "senderID": senderID], token: token)
        return (data["saveAccounts"] as? [[String: Any]] ?? []).compactMap { o in
            guard let id = o["id"] as? String, let sf = o["salesforceID"] as? String else { return nil }
            return (id, sf)
        }
    }

    static func jsonBody(_ object: Any) -> [UInt8] {
        Array((try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8))
    }
}
