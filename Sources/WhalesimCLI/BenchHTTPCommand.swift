import ArgumentParser
import Foundation
import WhaleBench
import SalesforceFake
import WhaleLoad
import WhaleEmbedded
import WhaleRun

/// `whalesim bench http`: the load runner's two HTTP executors (libcurl multi, AsyncHTTPClient)
/// against the fake Salesforce in this process, over HTTP and HTTPS: closed-loop workers sending
/// SOQL queries, runs alternating between executors, medians and the curl/AHC ratios printed.
/// The measurement is WhaleBench's ``HTTPBench``: this command checks its options, loads the org
/// and prints the lines the bench hands it.
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

            AsyncHTTPClient is in builds with the package's default trait (`swift build`, `swift run`); \
            scripts/whalesim's build leaves it out to build sooner, so there `--clients` is curl alone.

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
    @Option(help: "Executors to measure (curl, async-http-client), comma-separated; by default all this build has.")
    var clients = HTTPClientKind.built.map(\.rawValue).joined(separator: ",")
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
            if let why = kind.notBuilt { throw BadInput("--clients \(name): \(why)").exit() }
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

        let options = HTTPBench.Options(
            concurrency: concurrency, seconds: seconds, runs: runs, schemes: schemes, kinds: kinds, seed: seed,
            timeout: .milliseconds(timeoutMilliseconds))
        let bench: HTTPBench
        do {
            bench = try await HTTPBench.start(
                options, org: loaded, queries: BenchOrg.queries(org: loaded, seed: seed, count: 512),
                output: { print($0) })
        } catch {
            throw BadInput("\(error)").exit()
        }
        print("command: \(command)")
        let failed: Int
        do { failed = try await bench.run() } catch {
            printError("whalesim: \(error)")
            throw ExitStatus.correctnessViolated
        }
        if failed > 0 {
            printError("whalesim: \(failed) requests failed or were not 200")
            throw ExitStatus.correctnessViolated
        }
    }
}
