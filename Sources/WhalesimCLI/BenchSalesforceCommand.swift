import ArgumentParser
import Foundation
import WhaleBench
import SalesforceFake
import WhaleCore
import WhaleEmbedded
import WhaleRun
import SalesforceHTTP
#if canImport(Glibc)
    import Glibc
#endif

/// `whalesim bench salesforce`: query throughput and latency of the fake Salesforce over real HTTP
/// keep-alive connections, and the memory a generated org takes.
///
/// ```
/// swift run -c release whalesim bench salesforce --accounts 100000 --connections 64 --runs 3
/// ```
struct BenchSalesforceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "salesforce",
        abstract: "Queries/s, p99 and org memory of the fake Salesforce (targets: ≥ 5000 q/s, p99 ≤ 20 ms, ≤ 300 MB).",
        discussion: """
            Examples:
              swift run -c release whalesim bench salesforce
              swift run -c release whalesim bench salesforce --accounts 10000 --runs 1
            """)

    @Option(help: "Accounts in the generated org (with contacts, leads, users, tasks).")
    var accounts = 100_000
    @Option(help: "Keep-alive HTTP connections sending queries concurrently.")
    var connections = 64
    @Option(help: "Seconds per measured run.")
    var seconds = 5.0
    @Option(help: "Measured runs (the median is reported).")
    var runs = 3
    @Option(name: .customLong("batch-size"), help: "Sforce-Query-Options batchSize.")
    var batchSize = 200
    @Option(help: "Template org directory for the generator (default: the small org, ./Fixtures or built in).")
    var template: String?
    @Option(help: "Seed of the generated org and of the query mix.")
    var seed: UInt64 = 1
    @Option(name: .customLong("min-qps"), help: "Threshold: queries per second.")
    var minQPS = 5_000.0
    @Option(name: .customLong("max-p99-ms"), help: "Threshold: 99th percentile latency in milliseconds.")
    var maxP99 = 20.0
    @Option(name: .customLong("max-org-mb"), help: "Threshold: resident memory the org adds, in MB.")
    var maxOrgMB = 300.0

    func run() async throws {
        guard accounts > 0, connections > 0, seconds > 0, runs > 0 else {
            throw BadInput("--accounts, --connections, --seconds and --runs must be positive").exit()
        }
        let command =
            "whalesim bench salesforce --accounts \(accounts) --connections \(connections) --seconds \(seconds) --runs \(runs) --batch-size \(batchSize) --seed \(seed)"
        #if DEBUG
            printError("whalesim: warning: debug build; measure with swift run -c release")
        #endif
        let rssBefore = ProcessMemory.residentMB()
        let loadStart = ContinuousClock.now
        let org: Org
        defer { BuiltinFixtures.cleanUp() }
        let templatePath = try SmallOrg.directory(given: template)
        do { org = try BenchOrg.generate(seed: seed, accounts: accounts, template: templatePath) } catch let error
            as BadInput
        { throw error.exit() }
        let loadTime = ContinuousClock.now - loadStart
        let rssAfter = ProcessMemory.residentMB()
        let queries = BenchOrg.queries(org: org, seed: seed, count: 512)

        // In-process, one thread, no sockets, result cache off: what the engine plus handler cost.
        let bare = FakeSalesforce(org: org, config: FakeSalesforceConfig(seed: seed, queryResultCacheCapacity: 0))
        let bareToken = try BenchOrg.login(bare, org: org)
        let inProcess = BenchOrg.inProcessRate(
            bare, token: bareToken, targets: queries, batchSize: batchSize, seconds: min(2, seconds))

        // Over HTTP with the result cache off (every query runs the engine), then as configured by default.
        let uncached = try await BenchOrg.serve(
            org: org, config: FakeSalesforceConfig(seed: seed, queryResultCacheCapacity: 0)
        ) { port, token in
            let headers = [("Authorization", "Bearer \(token)"), ("Sforce-Query-Options", "batchSize=\(batchSize)")]
            return [
                try await HTTPLoadRun.measure(
                    port: port, connections: connections, seconds: seconds, targets: queries, headers: headers)
            ]
        }[0]
        var cacheStatistics = (hits: 0, misses: 0)
        // The first element is the no-SOQL baseline, the rest the measured runs.
        var results = try await BenchOrg.serve(
            org: org, config: FakeSalesforceConfig(seed: seed), statistics: { cacheStatistics = $0 }
        ) { port, token in
            let headers = [("Authorization", "Bearer \(token)"), ("Sforce-Query-Options", "batchSize=\(batchSize)")]
            // Warm-up (connections, lazily built indexes), the no-SOQL baseline, then the measured runs.
            _ = try await HTTPLoadRun.measure(
                port: port, connections: connections, seconds: min(1, seconds), targets: queries, headers: headers)
            var results = [
                try await HTTPLoadRun.measure(
                    port: port, connections: connections, seconds: seconds, targets: ["/services/data/"], headers: [])
            ]
            for _ in 0..<runs {
                results.append(
                    try await HTTPLoadRun.measure(
                        port: port, connections: connections, seconds: seconds, targets: queries, headers: headers))
            }
            return results
        }
        let baseline = results.removeFirst()
        let median = results.sorted { $0.queriesPerSecond < $1.queriesPerSecond }[results.count / 2]
        let p99s = results.map(\.p99Milliseconds).sorted()
        let p99 = p99s[p99s.count / 2]
        let orgMB = rssAfter - rssBefore

        print("command: \(command)")
        print(
            String(
                format: "org: %d accounts generated in %.2f s; RSS before %.1f MB, after %.1f MB, org %.1f MB",
                accounts, Double(loadTime.components.seconds) + Double(loadTime.components.attoseconds) / 1e18,
                rssBefore, rssAfter, orgMB))
        print(
            String(
                format: "baseline GET /services/data/ (no SOQL): %.0f req/s, p50 %.2f ms, p99 %.2f ms",
                baseline.queriesPerSecond, baseline.p50Milliseconds, baseline.p99Milliseconds))
        print(String(format: "in-process handler, 1 thread, result cache off: %.0f queries/s", inProcess))
        print(
            String(
                format: "HTTP, result cache off: %.0f queries/s, p50 %.2f ms, p99 %.2f ms, %.1f rows/page, errors %d",
                uncached.queriesPerSecond, uncached.p50Milliseconds, uncached.p99Milliseconds, uncached.rowsPerPage,
                uncached.errors))
        print(
            "HTTP, result cache on (default), \(queries.count) distinct queries; cache hits \(cacheStatistics.hits), misses \(cacheStatistics.misses):"
        )
        for (i, r) in results.enumerated() {
            print(
                String(
                    format: "run %d: %.0f queries/s, p50 %.2f ms, p99 %.2f ms, %d queries, %.1f rows/page, errors %d",
                    i + 1, r.queriesPerSecond, r.p50Milliseconds, r.p99Milliseconds, r.requests, r.rowsPerPage, r.errors
                ))
        }
        print(
            String(
                format:
                    "median: %.0f queries/s (target ≥ %.0f), p99 %.2f ms (target ≤ %.0f), org %.1f MB (target ≤ %.0f)",
                median.queriesPerSecond, minQPS, p99, maxP99, orgMB, maxOrgMB))
        let errors = results.map(\.errors).reduce(0, +) + uncached.errors
        if errors > 0 {
            printError("whalesim: \(errors) queries failed")
            throw ExitStatus.correctnessViolated
        }
        if median.queriesPerSecond < minQPS || p99 > maxP99 || orgMB > maxOrgMB {
            printError("whalesim: threshold breached")
            throw ExitStatus.thresholdBreached
        }
    }
}

/// Resident memory from /proc/self/status (Linux); 0 where unavailable.
enum ProcessMemory {
    /// Resident MB after handing freed heap back to the system (glibc `malloc_trim`), so the figure
    /// is live data rather than what generation left in malloc's free lists.
    static func residentMB() -> Double {
        FreedHeap.returnToSystem()
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let kb = line.split(separator: " ").dropFirst().first.flatMap { Double($0) } ?? 0
            return kb / 1024
        }
        return 0
    }
}

/// The generated org, a session, and the query mix for `whalesim bench salesforce`.
enum BenchOrg {
    static func generate(seed: UInt64, accounts: Int, template: String) throws -> Org {
        do {
            return try OrgGenerator.generate(
                seed: seed, accounts: accounts, templateDirectory: URL(fileURLWithPath: template))
        } catch {
            throw BadInput("--template \(template): \(error)")
        }
    }

    /// Starts a server on `org`, logs in, runs `body` with its HTTP port and token, stops it.
    static func serve<R>(
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
    static func inProcessRate(_ fake: FakeSalesforce, token: String, targets: [String], batchSize: Int, seconds: Double)
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
    static func login(_ fake: FakeSalesforce, org: Org) throws -> String {
        guard let credential = org.credentials.first, let app = fake.connectedApps.first else {
            throw BadInput("the generated org has no login principal")
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
            throw BadInput("bench login failed: \(response.status) \(response.bodyText)")
        }
        return token
    }

    /// Typical filtered Account queries (the Whaler client's first query: owner, industry, state),
    /// drawn with a seeded generator from the org's own owners, industries and states.
    static func queries(org: Org, seed: UInt64, count: Int) -> [String] {
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
