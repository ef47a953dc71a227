import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import WhaleProtocol
import WhaleServer
import WhalesimTesting

/// A reference server on 127.0.0.1, port 0, for one test: its own SQLite file (or `:memory:`),
/// the seed fixture, a fixed JWT key, cheap bcrypt. HTTP helpers speak to it like a client would.
struct ServerHarness: WhalerHTTPClient {
    static let seed = ExternalProcess.packageRoot.appendingPathComponent("Fixtures/whaler/seed.json")
    static let secret = "whalesim-test-secret-0123456789"
    /// Two users of one organization and one of the other (from the seed).
    static let ada = (email: "ann@acme.test", password: "whale-ann-1")
    static let bob = (email: "bo@acme.test", password: "whale-bo-1")
    static let eve = (email: "dee@globex.test", password: "whale-dee-1")

    let server: ReferenceServer
    let database: String

    static func start(database: String? = nil, configure: (inout ServerConfiguration) -> Void = { _ in }) async throws
        -> ServerHarness
    {
        var configuration = ServerConfiguration()
        configuration.port = 0
        let path =
            try database ?? ExternalProcess.temporaryDirectory("serve").appendingPathComponent("test.sqlite").path
        configuration.database = path
        configuration.fixtures = seed
        configuration.jwtSecret = Data(secret.utf8)
        configuration.bcryptCost = 4
        configuration.logLevel = .critical
        configuration.closeTimeout = .milliseconds(500)
        configure(&configuration)
        return ServerHarness(server: try await ReferenceServer.start(configuration), database: path)
    }

    var base: String { server.baseURL }
    var socketURL: String { server.socketURL }

    func stop() async { await server.stop() }
}

struct HarnessError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A client of a running server's HTTP side (no server of its own).
struct HTTPClientOnly: WhalerHTTPClient {
    let base: String
}

/// REST and GraphQL calls the way the Whaler app makes them.
protocol WhalerHTTPClient {
    var base: String { get }
}

extension WhalerHTTPClient {
    /// POSTs JSON; returns the HTTP status and the decoded body.
    func post(_ path: String, _ body: Any, token: String? = nil, rawBody: Data? = nil) async throws -> (
        status: Int, json: [String: Any]
    ) {
        var request = URLRequest(url: URL(string: base + path)!)
        request.httpMethod = "POST"
        request.httpBody = try rawBody ?? JSONSerialization.data(withJSONObject: body)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if let token { request.setValue(token, forHTTPHeaderField: "Authorization") }
        return try await send(request)
    }

    func get(_ path: String) async throws -> (status: Int, text: String) {
        let request = URLRequest(url: URL(string: base + path)!)
        let (data, status) = try await fetch(request)
        return (status, String(decoding: data, as: UTF8.self))
    }

    private func send(_ request: URLRequest) async throws -> (status: Int, json: [String: Any]) {
        let (data, status) = try await fetch(request)
        let json =
            (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [
                "_raw": String(decoding: data, as: UTF8.self)
            ]
        return (status, json)
    }

    private func fetch(_ request: URLRequest) async throws -> (Data, Int) {
        try await withCheckedThrowingContinuation { continuation in
            URLSession.shared.dataTask(with: request) { data, response, error in
                if let error { continuation.resume(throwing: error); return }
                continuation.resume(returning: (data ?? Data(), (response as? HTTPURLResponse)?.statusCode ?? -1))
            }.resume()
        }
    }

    /// Signs in; the access token and the user's id.
    func login(_ user: (email: String, password: String)) async throws -> (
        token: String, userId: String, organizationId: String
    ) {
        let (_, json) = try await post("/api/user/login", ["email": user.email, "password": user.password])
        guard let data = json["data"] as? [String: Any], let tokens = data["tokens"] as? [String: Any],
            let token = tokens["accessToken"] as? String, let response = data["response"] as? [String: Any],
            let id = response["id"] as? String, let organization = response["organizationId"] as? String
        else { throw HarnessError("login \(user.email) failed: \(json)") }
        return (token, id, organization)
    }

    /// Runs a GraphQL operation; returns `data` and the error messages.
    func graphQL(_ query: String, variables: [String: Any] = [:], token: String?) async throws -> (
        status: Int, data: [String: Any]?, errors: [String]
    ) {
        let (status, json) = try await post("/query", ["query": query, "variables": variables], token: token)
        let errors = (json["errors"] as? [[String: Any]] ?? []).compactMap { $0["message"] as? String }
        return (status, json["data"] as? [String: Any], errors)
    }

    /// The caller's tracked accounts' ids.
    func accountIds(token: String) async throws -> [String] {
        let answer = try await graphQL("{ accounts { id } }", token: token)
        return (answer.data?["accounts"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
    }

}
