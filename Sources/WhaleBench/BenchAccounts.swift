import Foundation
import WhaleEmbedded
import WhaleRun

/// The benches' set-up on a fresh `whalesim serve`: a seeded user signs in and tracks fresh
/// accounts whose notes the load types into.
package enum BenchAccounts {
    /// Signs in as `email` and makes `count` fresh accounts (tracked by the user), 500 per request.
    package static func signIn(
        _ server: ChildServer, accounts count: Int, email: String = "ann@acme.test",
        password: String = "whale-ann-1"
    ) async throws -> (token: String, userId: String, accounts: [String]) {
        let login = try await postJSON(server.baseURL + "/api/user/login", ["email": email, "password": password])
        guard let data = login["data"] as? [String: Any], let tokens = data["tokens"] as? [String: Any],
            let token = tokens["accessToken"] as? String, let user = data["response"] as? [String: Any],
            let userId = user["id"] as? String
        else { throw BenchError("bench: login as \(email) failed: \(login)") }
        var ids: [String] = []
        var start = 0
        while start < count {
            let end = min(count, start + 500)
            let changes = (start..<end).map { index -> [String: Any] in
                [
                    "account": ["name": "Bench \(index)", "salesforceID": "BENCH\(String(format: "%06d", index))"],
                    "newState": "tracked",
                ]
            }
            let query =
                "mutation Track($input: [AccountTrackingChange!]!) { applyAccountTrackingChanges(input: $input) { id } }"
            let answer = try await postJSON(
                server.baseURL + "/query", ["query": query, "variables": ["input": changes]], token: token)
            guard let result = (answer["data"] as? [String: Any])?["applyAccountTrackingChanges"] as? [[String: Any]]
            else {
                throw BenchError("bench: creating accounts failed: \(answer)")
            }
            ids += result.compactMap { $0["id"] as? String }
            start = end
        }
        return (token, userId, ids)
    }
}
