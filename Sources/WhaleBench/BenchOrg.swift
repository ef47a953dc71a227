import Foundation
import SalesforceFake
import SalesforceHTTP
import WhaleCore

/// The generated org, a session, and the query mix for `whalesim bench salesforce` (the query
/// mix for `bench http` too).
package enum BenchOrg {
    /// `accounts` accounts (with contacts, leads, users, tasks) generated from the org in `template`.
    package static func generate(seed: UInt64, accounts: Int, template: String) throws -> Org {
        do {
            return try OrgGenerator.generate(
                seed: seed, accounts: accounts, templateDirectory: URL(fileURLWithPath: template))
        } catch {
            throw BenchError("--template \(template): \(error)")
        }
    }

    /// Starts a server on `org`, logs in, runs `body` with its HTTP port and token, stops it.
    package static func serve<R>(
        org: Org, config: FakeSalesforceConfig, statistics: ((hits: Int, misses: Int)) -> Void = { _ in },
        _ body: (Int, String) async throws -> R
    ) async throws -> R {
        let server = try await FakeSalesforceServer.start(org: org, config: config)
        do {
            let result = try await body(server.httpPort, try login(server.fake, org: org))
            statistics(server.fake.queryCacheStatistics)
            await server.stop()
            return result
        } catch {
            await server.stop()
            throw error
        }
    }

    /// Queries per second through `FakeSalesforce.handle` directly, on this thread.
    package static func inProcessRate(
        _ fake: FakeSalesforce, token: String, targets: [String], batchSize: Int, seconds: Double
    )
        -> Double
    {
        let headers: [(name: String, value: String)] = [
            ("Authorization", "Bearer \(token)"), ("Sforce-Query-Options", "batchSize=\(batchSize)"),
        ]
        let start = ContinuousClock.now
        let deadline = start + .milliseconds(Int(seconds * 1000))
        var count = 0
        while ContinuousClock.now < deadline {
            _ = fake.handle(SFRequest(method: "GET", target: targets[count % targets.count], headers: headers))
            count += 1
        }
        let elapsed = ContinuousClock.now - start
        return Double(count) / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    /// A bearer token from the OAuth password grant of the org's first login principal, in-process.
    package static func login(_ fake: FakeSalesforce, org: Org) throws -> String {
        guard let credential = org.credentials.first, let app = fake.connectedApps.first else {
            throw BenchError("the generated org has no login principal")
        }
        let form = [
            ("grant_type", "password"), ("client_id", app.clientId), ("client_secret", app.clientSecret),
            ("username", credential.username), ("password", credential.password + credential.securityToken),
        ]
        .map { "\($0.0)=\(QueryString.encode($0.1))" }.joined(separator: "&")
        let response = fake.handle(SFRequest(method: "POST", target: "/services/oauth2/token", body: form))
        guard response.status == 200,
            let token = try? SalesforceFake.JSONValue.parse(response.body)["access_token"]?.stringValue
        else {
            throw BenchError("bench login failed: \(response.status) \(response.bodyText)")
        }
        return token
    }

    /// Typical filtered Account queries (the Whaler client's first query: owner, industry, state),
    /// drawn with a seeded generator from the org's own owners, industries and states.
    package static func queries(org: Org, seed: UInt64, count: Int) -> [String] {
        let owners = org.records(of: "User").map(\.id)
        let industries = org.schema(named: "Account")?.field(named: "Industry")?.picklistValues ?? ["Technology"]
        let states = Array(Set(org.records(of: "Account").prefix(5000).compactMap { $0["BillingState"]?.stringValue }))
            .sorted()
        var rng = SplitMix64(seed: seed)
        return (0..<count).map { _ in
            let owner = owners.isEmpty ? "005000000000000AAA" : owners[Int(rng.next() % UInt64(owners.count))]
            let a = industries[Int(rng.next() % UInt64(industries.count))]
            let b = industries[Int(rng.next() % UInt64(industries.count))]
            let state = states.isEmpty ? "CA" : states[Int(rng.next() % UInt64(states.count))]
            let soql = """
                SELECT id, name, type, industry, annualRevenue, billingCity, billingState, phone, website, \
                numberOfEmployees, ownerId, description from Account WHERE (NOT type like 'Customer%') \
                AND (OwnerId = '\(owner)') AND (Industry = '\(a)' OR Industry = '\(b)') AND (BillingState = '\(state)')
                """
            return "/services/data/v59.0/query?q=" + QueryString.encode(soql)
        }
    }
}
