import ArgumentParser
import Foundation
import WhaleBench
import WhaleEmbedded

/// `whalesim bench salesforce`: query throughput and latency of the fake Salesforce over real HTTP
/// keep-alive connections, and the memory a generated org takes. The measurement is WhaleBench's
/// ``SalesforceBench``: this command checks its options and prints the lines the bench hands it.
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
        defer { BuiltinFixtures.cleanUp() }
        let options = SalesforceBench.Options(
            accounts: accounts, connections: connections, seconds: seconds, runs: runs, batchSize: batchSize,
            seed: seed, minQPS: minQPS, maxP99: maxP99, maxOrgMB: maxOrgMB)
        let bench: SalesforceBench
        do {
            bench = try SalesforceBench.generate(
                options, template: { try SmallOrg.directory(given: template) }, output: { print($0) })
        } catch let error as BenchError {
            throw BadInput(error.description).exit()
        }
        let figures = try await bench.measure()
        print("command: \(command)")
        switch bench.report(figures) {
        case .pass: break
        case .failed(let errors):
            printError("whalesim: \(errors) queries failed")
            throw ExitStatus.correctnessViolated
        case .thresholdBreached:
            printError("whalesim: threshold breached")
            throw ExitStatus.thresholdBreached
        }
    }
}
