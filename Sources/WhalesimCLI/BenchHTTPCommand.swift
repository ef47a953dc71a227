import ArgumentParser
import Foundation
import WhaleBench
import SalesforceFake
import WhaleLoad
import WhaleEmbedded
import WhaleRun
import SalesforceHTTP
#if canImport(Glibc)
    import Glibc
#endif

/// `whalesim bench http`: the load runner's two HTTP executors (libcurl multi, AsyncHTTPClient)
/// against the fake Salesforce in this process, over HTTP and HTTPS: closed-loop workers sending
/// SOQL queries, runs alternating between executors, medians and the curl/AHC ratios printed.
///
/// ```
/// swift build -c release --product whalesim && .build/release/whalesim bench http --runs 3
/// ```
struct BenchHTTPCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "http",
        abstract:
            "Requests/s, latency and CPU per request of the curl and AsyncHTTPClient executors against the fake Salesforce.",
        discussion: """
            Server and clients share this process, so CPU seconds per 1,000 requests include the fake's own share, \
            which is the same for both executors; the difference between them is the client's.

            Examples:
              swift run -c release whalesim bench http
              swift run -c release whalesim bench http --scheme http --seconds 2 --runs 1
            """)

    @Option(help: "Closed-loop workers, each with one request in flight.")
    var concurrency = 200
    @Option(help: "Seconds per measured run.")
    var seconds = 5.0
    @Option(help: "Measured runs per executor and scheme (the median is reported).")
    var runs = 3
    @Option(help: "http, https or both.")
    var scheme = "both"
    @Option(help: "Executors to measure (curl, async-http-client), comma-separated.")
    var clients = HTTPClientKind.allCases.map(\.rawValue).joined(separator: ",")
    @Option(help: "Org fixture directory (default: the small org, ./Fixtures or built in).")
    var org: String?
    @Option(help: "Seed of the query mix.")
    var seed: UInt64 = 1
    @Option(name: .customLong("timeout-ms"), help: "Per-request timeout in milliseconds.")
    var timeoutMilliseconds = 10_000

    func run() async throws {
        guard concurrency > 0, concurrency <= 10_000, seconds > 0, runs > 0, timeoutMilliseconds > 0 else {
            throw BadInput("--concurrency must be 1...10000; --seconds, --runs and --timeout-ms must be positive")
                .exit()
        }
        let schemes: [String]
        switch scheme {
        case "http", "https": schemes = [scheme]
        case "both": schemes = ["http", "https"]
        default: throw BadInput("--scheme must be http, https or both (got \(scheme))").exit()
        }
        var kinds: [HTTPClientKind] = []
        for name in clients.split(separator: ",") {
            guard let kind = HTTPClientKind(rawValue: String(name)) else {
                throw BadInput(
                    "--clients: unknown executor \(name) (known: \(HTTPClientKind.allCases.map(\.rawValue).joined(separator: ", ")))"
                ).exit()
            }
            if !kinds.contains(kind) { kinds.append(kind) }
        }
        guard !kinds.isEmpty else { throw BadInput("--clients names no executor").exit() }
        let loaded: Org
        defer { BuiltinFixtures.cleanUp() }
        let orgPath = try SmallOrg.directory(given: org)
        do { loaded = try Org.load(directory: URL(fileURLWithPath: orgPath)) } catch {
            throw BadInput("--org \(orgPath): \(error)").exit()
        }
        let command =
            "whalesim bench http --concurrency \(concurrency) --seconds \(seconds) --runs \(runs) --scheme \(scheme) --clients \(kinds.map(\.rawValue).joined(separator: ","))\(org.map { " --org \($0)" } ?? "") --seed \(seed)"
        if !isReleaseBuild { printError("whalesim: warning: debug build; measure with swift build -c release") }

        let server: FakeSalesforceServer
        do {
            server = try await FakeSalesforceServer.start(org: loaded, config: FakeSalesforceConfig(seed: seed))
        } catch {
            throw BadInput("\(error)").exit()
        }
        let queries = BenchOrg.queries(org: loaded, seed: seed, count: 512)
        let timeout = Duration.milliseconds(timeoutMilliseconds)
        var executors: [HTTPClientKind: any HTTPExecutor] = [:]
        for kind in kinds {
            executors[kind] = HTTPExecutors.make(kind, caFile: server.caFile.path, maxConnections: concurrency)
        }
        print("command: \(command)")
        print(
            "org: \(loaded.settings.name), \(loaded.records(of: "Account").count) accounts, \(queries.count) distinct queries; server and clients in this process"
        )
        var failed = 0
        do {
            for scheme in schemes {
                let base = scheme == "https" ? server.httpsURL : server.httpURL
                var results: [HTTPClientKind: [HTTPBenchResult]] = [:]
                // Logs in through the first executor, as a virtual client would.
                let token = try await Self.login(executors[kinds[0]]!, base: base, org: loaded)
                let targets = queries.map { base + $0 }
                let headers = [("Authorization", "Bearer \(token)")]
                for kind in kinds {  // warm-up: connections, TLS sessions, the fake's caches
                    _ = await Self.measure(
                        executors[kind]!, workers: concurrency, seconds: min(1, seconds), targets: targets,
                        headers: headers, timeout: timeout)
                }
                for run in 1...runs {
                    for kind in (run % 2 == 1 ? kinds : kinds.reversed()) {
                        let result = await Self.measure(
                            executors[kind]!, workers: concurrency, seconds: seconds, targets: targets,
                            headers: headers, timeout: timeout)
                        results[kind, default: []].append(result)
                        failed += result.errors + result.non200
                        print("\(scheme) run \(run) \(kind.rawValue): \(result.line)")
                        if let example = result.firstError { print("  first error: \(example)") }
                    }
                }
                var medians: [HTTPClientKind: HTTPBenchResult.Medians] = [:]
                for kind in kinds {
                    let median = HTTPBenchResult.Medians(results[kind]!)
                    medians[kind] = median
                    print("\(scheme) median \(kind.rawValue): \(median.line)")
                }
                if let curl = medians[.curl], let ahc = medians[.asyncHTTPClient] {
                    print(
                        String(
                            format: "%@ curl/AHC: requests/s %.2f×, p50 %.2f×, p99 %.2f×, CPU per 1,000 requests %.2f×",
                            scheme, curl.requestsPerSecond / ahc.requestsPerSecond, curl.p50 / ahc.p50,
                            curl.p99 / ahc.p99,
                            curl.cpuPerThousand / ahc.cpuPerThousand))
                }
            }
        } catch {
            for executor in executors.values { await executor.shutdown() }
            await server.stop()
            printError("whalesim: \(error)")
            throw ExitStatus.correctnessViolated
        }
        for executor in executors.values { await executor.shutdown() }
        await server.stop()
        if failed > 0 {
            printError("whalesim: \(failed) requests failed or were not 200")
            throw ExitStatus.correctnessViolated
        }
    }

    /// OAuth password grant of the org's first credential through `http`; the access token.
    static func login(_ http: any HTTPExecutor, base: String, org: Org) async throws -> String {
        guard let credential = org.credentials.first else { throw BadInput("the org has no login principal") }
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
            throw BadInput("login failed: \(result.status) \(result.text)")
        }
        return token
    }

    /// `workers` closed loops for `seconds`: each sends the next query when its last one is answered.
    static func measure(
        _ http: any HTTPExecutor, workers: Int, seconds: Double, targets: [String],
        headers: [(String, String)], timeout: Duration
    ) async -> HTTPBenchResult {
        let cpuStart = processCPUSeconds()
        let start = ContinuousClock.now
        let deadline = start + .milliseconds(Int(seconds * 1000))
        let parts = await withTaskGroup(of: HTTPBenchResult.Worker.self) { group in
            for worker in 0..<workers {
                group.addTask {
                    var part = HTTPBenchResult.Worker()
                    var next = worker * 7919
                    while ContinuousClock.now < deadline {
                        let target = targets[next % targets.count]
                        next += 1
                        let sent = ContinuousClock.now
                        do throws(HTTPTransportError) {
                            let result = try await http.execute(
                                HTTPRequestSpec(url: target, headers: headers), timeout: timeout)
                            let elapsed = ContinuousClock.now - sent
                            part.latencies.append(
                                Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds)
                                    * 1000)
                            if result.status != 200 {
                                part.non200 += 1
                                if part.firstError == nil {
                                    part.firstError = "\(result.status) \(result.text.prefix(200))"
                                }
                            }
                        } catch {
                            part.errors += 1
                            if part.firstError == nil { part.firstError = "\(error)" }
                        }
                    }
                    return part
                }
            }
            var parts: [HTTPBenchResult.Worker] = []
            for await part in group { parts.append(part) }
            return parts
        }
        let elapsed = ContinuousClock.now - start
        let cpu = processCPUSeconds() - cpuStart
        return HTTPBenchResult(
            parts: parts, seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
            cpuSeconds: cpu)
    }
}

/// One measured run of one executor.
struct HTTPBenchResult {
    struct Worker: Sendable {
        var latencies: [Double] = []
        var errors = 0
        var non200 = 0
        var firstError: String?
    }

    var requests: Int
    var errors: Int
    var non200: Int
    var firstError: String?
    var requestsPerSecond: Double
    var p50: Double
    var p99: Double
    var cpuPerThousand: Double

    init(parts: [Worker], seconds: Double, cpuSeconds: Double) {
        let latencies = parts.flatMap(\.latencies).sorted()
        requests = latencies.count
        errors = parts.map(\.errors).reduce(0, +)
        non200 = parts.map(\.non200).reduce(0, +)
        firstError = parts.lazy.compactMap(\.firstError).first
        requestsPerSecond = Double(requests) / seconds
        p50 = latencies.isEmpty ? 0 : latencies[latencies.count / 2]
        p99 = latencies.isEmpty ? 0 : latencies[min(latencies.count - 1, latencies.count * 99 / 100)]
        cpuPerThousand = requests == 0 ? 0 : cpuSeconds / Double(requests) * 1000
    }

    var line: String {
        String(
            format:
                "%.0f requests/s, p50 %.2f ms, p99 %.2f ms, CPU %.3f s per 1,000 requests, %d requests, errors %d, non-200 %d",
            requestsPerSecond, p50, p99, cpuPerThousand, requests, errors, non200)
    }

    /// Each figure's median over the runs (taken separately).
    struct Medians {
        var requestsPerSecond, p50, p99, cpuPerThousand: Double
        init(_ results: [HTTPBenchResult]) {
            func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
            requestsPerSecond = median(results.map(\.requestsPerSecond))
            p50 = median(results.map(\.p50))
            p99 = median(results.map(\.p99))
            cpuPerThousand = median(results.map(\.cpuPerThousand))
        }
        var line: String {
            String(
                format: "%.0f requests/s, p50 %.2f ms, p99 %.2f ms, CPU %.3f s per 1,000 requests",
                requestsPerSecond, p50, p99, cpuPerThousand)
        }
    }
}
