import Foundation
import SalesforceFake
import Testing
import WhaleLoad
import SalesforceHTTP
import WhalesimTesting

/// Both ``HTTPExecutor``s against the fake Salesforce on real sockets (HTTP, and HTTPS trusting
/// only the generated CA), and against sockets that refuse or never answer.
@Suite(.serialized) struct HTTPExecutorTests {
    static let kinds = HTTPClientKind.allCases
    static let admin = (username: "admin@whaler.test", password: "whaler123", token: "TOKEN123")

    @Test(arguments: kinds, [false, true])
    func getAndPostRoundTrip(kind: HTTPClientKind, secure: Bool) async throws {
        try await withServerAndExecutor(kind) { server, http in
            let base = secure ? server.httpsURL : server.httpURL

            let versions = try await http.execute(HTTPRequestSpec(url: "\(base)/services/data/"), timeout: .seconds(10))
            #expect(versions.status == 200)
            #expect(versions.headers.contains { $0.0 == "content-type" && $0.1.hasPrefix("application/json") })
            #expect(try JSONValue.parse(versions.text).arrayValue?.contains { $0["version"] == "59.0" } == true)

            // A form body and a header out; the token the fake derived from them back.
            let token = try await Self.login(http, base: base)

            // A JSON body with headers: the record comes back from a GET.
            let created = try await http.execute(
                HTTPRequestSpec(
                    method: "POST", url: "\(base)/services/data/v59.0/sobjects/Account",
                    headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")],
                    body: Array(#"{"Name":"Wal Ünïcode & Sons"}"#.utf8)), timeout: .seconds(10))
            #expect(created.status == 201, "\(created.text)")
            let id = try #require(try JSONValue.parse(created.text)["id"]?.stringValue)
            let fetched = try await http.execute(
                HTTPRequestSpec(
                    url: "\(base)/services/data/v59.0/sobjects/Account/\(id)",
                    headers: [("Authorization", "Bearer \(token)")]),
                timeout: .seconds(10))
            #expect(fetched.status == 200)
            #expect(try JSONValue.parse(fetched.text)["Name"] == "Wal Ünïcode & Sons")

            let query = try await http.execute(
                HTTPRequestSpec(
                    url: "\(base)/services/data/v59.0/query?q="
                        + QueryString.encode("SELECT Id, Name FROM Account WHERE Id = '\(id)'"),
                    headers: [("Authorization", "Bearer \(token)")]), timeout: .seconds(10))
            #expect(query.status == 200)
            #expect(try JSONValue.parse(query.text)["totalSize"] == 1)

            // PATCH with a body, then DELETE without one: 204 and an empty body.
            let patched = try await http.execute(
                HTTPRequestSpec(
                    method: "PATCH", url: "\(base)/services/data/v59.0/sobjects/Account/\(id)",
                    headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")],
                    body: Array(#"{"Name":"Renamed"}"#.utf8)), timeout: .seconds(10))
            #expect(patched.status == 204)
            let deleted = try await http.execute(
                HTTPRequestSpec(
                    method: "DELETE", url: "\(base)/services/data/v59.0/sobjects/Account/\(id)",
                    headers: [("Authorization", "Bearer \(token)")]), timeout: .seconds(10))
            #expect(deleted.status == 204 && deleted.body.isEmpty)
        }
    }

    @Test(arguments: kinds, [false, true])
    func notFoundIsAResult(kind: HTTPClientKind, secure: Bool) async throws {
        try await withServerAndExecutor(kind) { server, http in
            let base = secure ? server.httpsURL : server.httpURL
            let result = try await http.execute(
                HTTPRequestSpec(url: "\(base)/services/nothing/here"), timeout: .seconds(10))
            #expect(result.status == 404)
            #expect(result.text.contains("NOT_FOUND"))
        }
    }

    @Test(arguments: kinds, [false, true])
    func twoHundredConcurrentRequestsComplete(kind: HTTPClientKind, secure: Bool) async throws {
        try await withServerAndExecutor(kind) { server, http in
            let base = secure ? server.httpsURL : server.httpURL
            let token = try await Self.login(http, base: base)
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for i in 0..<200 {
                    group.addTask {
                        let soql = "SELECT Id FROM Account LIMIT \(i % 7 + 1)"
                        let result = try await http.execute(
                            HTTPRequestSpec(
                                url: "\(base)/services/data/v59.0/query?q=" + QueryString.encode(soql),
                                headers: [("Authorization", "Bearer \(token)")]), timeout: .seconds(30))
                        return result.status
                    }
                }
                var statuses: [Int] = []
                for try await status in group { statuses.append(status) }
                return statuses
            }
            #expect(statuses.count == 200)
            #expect(statuses.allSatisfy { $0 == 200 })
        }
    }

    @Test(arguments: kinds)
    func refusedPortThrowsConnect(kind: HTTPClientKind) async throws {
        let port = try SilentListener.unusedPort()
        let http = HTTPExecutors.make(kind)
        let start = ContinuousClock.now
        do throws(HTTPTransportError) {
            _ = try await http.execute(HTTPRequestSpec(url: "http://127.0.0.1:\(port)/"), timeout: .seconds(10))
            Issue.record("a refused connection returned a result")
        } catch {
            #expect(error.kind == .connect, "\(error)")
        }
        #expect(ContinuousClock.now - start < .seconds(5))
        await http.shutdown()
    }

    @Test(arguments: kinds)
    func silentServerThrowsTimeout(kind: HTTPClientKind) async throws {
        let listener = try SilentListener()
        defer { listener.close() }
        let http = HTTPExecutors.make(kind)
        let start = ContinuousClock.now
        do throws(HTTPTransportError) {
            _ = try await http.execute(
                HTTPRequestSpec(url: "http://127.0.0.1:\(listener.port)/"), timeout: .milliseconds(300))
            Issue.record("a server that never answers returned a result")
        } catch {
            #expect(error.kind == .timeout, "\(error)")
        }
        let elapsed = ContinuousClock.now - start
        #expect(elapsed >= .milliseconds(250) && elapsed < .seconds(5), "\(elapsed)")
        await http.shutdown()
    }

    @Test(arguments: kinds)
    func tlsWithoutTheCAFails(kind: HTTPClientKind) async throws {
        let server = try await FakeSalesforceServer.start(org: try Self.loadSmallOrg())
        let http = HTTPExecutors.make(kind)  // the system's trust store does not know the fake's CA
        do throws(HTTPTransportError) {
            _ = try await http.execute(HTTPRequestSpec(url: "\(server.httpsURL)/services/data/"), timeout: .seconds(10))
            Issue.record("an unknown CA was trusted")
        } catch {
            #expect(error.kind == .tls, "\(error)")
        }
        await http.shutdown()
        await server.stop()
    }

    /// Cancelling the caller's task ends its transfer at once; the executor goes on serving.
    @Test(arguments: kinds)
    func cancellationEndsTheTransfer(kind: HTTPClientKind) async throws {
        let server = try await FakeSalesforceServer.start(org: try Self.loadSmallOrg())
        let listener = try SilentListener()
        let http = HTTPExecutors.make(kind, caFile: server.caFile.path)
        let waiting = Task { () -> HTTPTransportError? in
            do throws(HTTPTransportError) {
                _ = try await http.execute(
                    HTTPRequestSpec(url: "http://127.0.0.1:\(listener.port)/"), timeout: .seconds(60))
                return nil
            } catch { return error }
        }
        try await Task.sleep(for: .milliseconds(200))
        let start = ContinuousClock.now
        waiting.cancel()
        let failure = await waiting.value
        #expect(failure != nil)
        #expect(ContinuousClock.now - start < .seconds(5))
        let after = try await http.execute(
            HTTPRequestSpec(url: "\(server.httpURL)/services/data/"), timeout: .seconds(10))
        #expect(after.status == 200)
        await http.shutdown()
        listener.close()
        await server.stop()
    }

    /// Shutdown fails a request in flight at once, refuses later ones, and leaves no descriptor open.
    @Test(arguments: kinds)
    func shutdownEndsEverythingWithoutLeaks(kind: HTTPClientKind) async throws {
        let server = try await FakeSalesforceServer.start(org: try Self.loadSmallOrg())
        let listener = try SilentListener()
        // Warm the process-wide parts (event loops, curl_global_init) before counting.
        let warm = HTTPExecutors.make(kind, caFile: server.caFile.path)
        _ = try await warm.execute(HTTPRequestSpec(url: "\(server.httpsURL)/services/data/"), timeout: .seconds(10))
        await warm.shutdown()
        try await Self.waitForDescriptors(atMost: Int.max)
        let before = Self.openDescriptors()

        let http = HTTPExecutors.make(kind, caFile: server.caFile.path)
        for _ in 0..<3 {
            let result = try await http.execute(
                HTTPRequestSpec(url: "\(server.httpsURL)/services/data/"), timeout: .seconds(10))
            #expect(result.status == 200)
        }
        let stuck = Task { () -> HTTPTransportError? in
            do throws(HTTPTransportError) {
                _ = try await http.execute(
                    HTTPRequestSpec(url: "http://127.0.0.1:\(listener.port)/"), timeout: .seconds(60))
                return nil
            } catch { return error }
        }
        try await Task.sleep(for: .milliseconds(200))
        let start = ContinuousClock.now
        await http.shutdown()
        let failure = await stuck.value
        #expect(failure != nil)
        #expect(ContinuousClock.now - start < .seconds(5))
        do throws(HTTPTransportError) {
            _ = try await http.execute(HTTPRequestSpec(url: "\(server.httpURL)/services/data/"), timeout: .seconds(5))
            Issue.record("a shut-down executor ran a request")
        } catch {
            #expect(error.kind == .other, "\(error)")
        }
        // The server closes its side of each connection asynchronously.
        try await Self.waitForDescriptors(atMost: before)
        #expect(Self.openDescriptors() <= before)
        listener.close()
        await server.stop()
    }

    /// Requests racing a shutdown all end (a result or an error), none left waiting.
    @Test(arguments: kinds)
    func requestsRacingShutdownAllEnd(kind: HTTPClientKind) async throws {
        let listener = try SilentListener()
        let http = HTTPExecutors.make(kind)
        let start = ContinuousClock.now
        let ended = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<100 {
                group.addTask {
                    do throws(HTTPTransportError) {
                        _ = try await http.execute(
                            HTTPRequestSpec(url: "http://127.0.0.1:\(listener.port)/"), timeout: .seconds(60))
                    } catch {}
                    return true
                }
            }
            group.addTask {
                await http.shutdown()
                return false
            }
            var ended = 0
            for await request in group where request { ended += 1 }
            return ended
        }
        #expect(ended == 100)
        #expect(ContinuousClock.now - start < .seconds(10))
        listener.close()
    }

    // MARK: Helpers

    static func loadSmallOrg() throws -> Org {
        try Org.load(directory: ExternalProcess.packageRoot.appendingPathComponent("Fixtures/salesforce/small"))
    }

    /// Starts the fake on the small org and an executor of `kind` trusting its CA; stops both after `body`.
    func withServerAndExecutor(
        _ kind: HTTPClientKind,
        _ body: (FakeSalesforceServer, any HTTPExecutor) async throws -> Void
    ) async throws {
        let server = try await FakeSalesforceServer.start(org: try Self.loadSmallOrg())
        let http = HTTPExecutors.make(kind, caFile: server.caFile.path)
        do {
            try await body(server, http)
        } catch {
            await http.shutdown()
            await server.stop()
            throw error
        }
        await http.shutdown()
        await server.stop()
    }

    /// OAuth password grant (form body, explicit Content-Type); returns the access token.
    static func login(_ http: any HTTPExecutor, base: String) async throws -> String {
        let form = [
            ("grant_type", "password"), ("client_id", "whalesim-client"), ("client_secret", "whalesim-secret"),
            ("username", admin.username), ("password", admin.password + admin.token),
        ]
        .map { "\($0.0)=\(QueryString.encode($0.1))" }.joined(separator: "&")
        let result = try await http.execute(
            HTTPRequestSpec(
                method: "POST", url: "\(base)/services/oauth2/token",
                headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")],
                body: Array(form.utf8)), timeout: .seconds(10))
        #expect(result.status == 200, "\(result.text)")
        let json = try JSONValue.parse(result.text)
        #expect(json["instance_url"] == .string(base))
        return try #require(json["access_token"]?.stringValue)
    }

    static func openDescriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
    }

    /// Waits up to 5 s for the open descriptor count to fall to `limit` (and to settle).
    static func waitForDescriptors(atMost limit: Int) async throws {
        let deadline = ContinuousClock.now + .seconds(5)
        var last = openDescriptors()
        while ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
            let now = openDescriptors()
            if now <= limit && now == last { return }
            last = now
        }
    }
}
