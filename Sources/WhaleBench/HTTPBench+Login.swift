import SalesforceFake
import WhaleLoad

extension HTTPBench {
    /// OAuth password grant of the org's first credential through `http`; the access token.
    static func login(_ http: any HTTPExecutor, base: String, org: Org) async throws -> String {
        guard let credential = org.credentials.first else { throw BenchError("the org has no login principal") }
        let app = ConnectedApp.defaults[0]
        let form = [
            ("grant_type", "password"), ("client_id", app.clientId), ("client_secret", app.clientSecret),
            ("username", credential.username), ("password", credential.password + credential.securityToken),
        ]
        .map { "\($0.0)=\(QueryString.encode($0.1))" }.joined(separator: "&")
        let result = try await http.execute(
            HTTPRequestSpec(
                method: "POST", url: base + "/services/oauth2/token",
                headers: [("Content-Type", "application/x-www-form-urlencoded")], body: Array(form.utf8)),
            timeout: .seconds(10))
        guard result.status == 200,
            let token = try? SalesforceFake.JSONValue.parse(result.text)["access_token"]?.stringValue
        else {
            throw BenchError("login failed: \(result.status) \(result.text)")
        }
        return token
    }
}
