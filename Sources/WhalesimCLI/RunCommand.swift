import ArgumentParser
import Foundation
import WhaleRun
import WhaleSim

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a scenario live: virtual clients on real sockets against a server and Salesforce.",
        discussion: """
            SCENARIO is a built-in name (\(BuiltinScenarios.names.joined(separator: ", "))) or a path to a .yml file; \
            without one, the built-in demo live-demo runs on the embedded server and fake Salesforce. The server and \
            Salesforce are embedded unless the scenario's live section or --server / --salesforce name URLs. \
            Exit codes: 0 pass, 1 a latency or error threshold breached, 2 a checker found a violation, \
            3 inconclusive, 64 bad usage or input.
            """)

    @Argument(help: "Scenario name or .yml path (default: live-demo).")
    var scenario: String?

    @Option(help: "Seed of every choice the virtual users make (default: the scenario's).")
    var seed: UInt64?

    @Option(help: "Override the scenario's client count.")
    var clients: Int?

    @Option(help: "Override the number of notes edited.")
    var documents: Int?

    @Option(help: "Override the load duration (e.g. 30s, 2m, 500ms).")
    var duration: String?

    @Option(help: "The Whaler server to load (http://host:port); default embedded.")
    var server: String?

    @Option(help: "Salesforce base URL (https://instance); default the embedded fake.")
    var salesforce: String?

    @Option(name: .customLong("salesforce-user"), help: "username:password+securitytoken for a non-embedded Salesforce.")
    var salesforceUser: String?

    @Option(help: "Run slice i of N of the clients (i/N, 0-based), e.g. 0/4; combine the records with whalesim merge.")
    var shard: String?

    @Option(help: "Where run records go.")
    var reportDir = "Reports"

    @Option(help: "The directory holding Fixtures/ (seed users, the Salesforce org).")
    var fixtures = "Fixtures"

    @Flag(help: "No progress output while the load runs.")
    var quiet = false

    func run() async throws {
        let options: LiveRunOptions
        do { options = try makeOptions() } catch let e as BadInput { throw e.exit() }
        let startedAt = Date()
        let run = LiveRun(options: options) { printLine($0) }
        let result: LiveRunResult
        do { result = try await run.run() } catch {
            printError("whalesim: the run could not start: \(error)")
            throw ExitStatus.inconclusive
        }
        let record = LiveRunRecord(result: result, options: options, startedAt: startedAt, wallSeconds: Date().timeIntervalSince(startedAt))
        RunSummaryPrinter.print(result, record: record)
        do {
            let dir = try LiveRecordWriter.write(record, history: result.history, root: reportDir, startedAt: startedAt)
            print("report: \(dir)/report.html")
        } catch {
            printError("whalesim: could not write the report: \(error)")
        }
        print("verdict: \(RunSummaryPrinter.verdictLine(result))")
        throw ExitCode(result.exitCode)
    }

    func makeOptions() throws -> LiveRunOptions {
        let ref = scenario ?? "live-demo"
        var s: Scenario
        do { s = try BuiltinScenarios.load(ref) } catch { throw BadInput(error.description) }
        var problems: [String] = []
        var overrides: [String] = []
        var live = s.live ?? LiveSpec()
        if let clients {
            if (1...10_000).contains(clients) { s.clients = clients; overrides += ["--clients", "\(clients)"] } else { problems.append("--clients \(clients): must be 1...10000") }
        }
        if let documents {
            if (1...10_000).contains(documents) { s.documents = documents; overrides += ["--documents", "\(documents)"] } else { problems.append("--documents \(documents): must be 1...10000") }
        }
        if s.documents > s.clients { problems.append("\(s.documents) documents for \(s.clients) clients: every document needs a client") }
        if let duration {
            if let ms = Self.parseDuration(duration), ms > 0 { live.durationMs = ms; overrides += ["--duration", duration] } else { problems.append("--duration \(duration): expected e.g. 30s, 2m or 500ms") }
        }
        if let server {
            if let u = URL(string: server), ["http", "https"].contains(u.scheme ?? ""), u.host != nil { live.server = .url(server.hasSuffix("/") ? String(server.dropLast()) : server); overrides += ["--server", server] } else { problems.append("--server \(server): expected an http(s) URL") }
        }
        if let salesforce {
            if let u = URL(string: salesforce), ["http", "https"].contains(u.scheme ?? ""), u.host != nil { live.salesforce = .url(salesforce); overrides += ["--salesforce", salesforce] } else { problems.append("--salesforce \(salesforce): expected an http(s) URL") }
        }
        if case .url = live.salesforce, salesforceUser == nil { problems.append("a Salesforce URL needs --salesforce-user username:password+token") }
        var shardValue: (Int, Int)?
        if let shard {
            let parts = shard.split(separator: "/").map { Int($0) }
            if parts.count == 2, let i = parts[0], let n = parts[1], n >= 1, n <= 1000, (0..<n).contains(i) { shardValue = (i, n) } else { problems.append("--shard \(shard): expected i/N with 0 <= i < N, e.g. 0/4") }
        }
        let fixturesURL = URL(fileURLWithPath: fixtures)
        if case .embedded = live.server, !FileManager.default.fileExists(atPath: fixturesURL.appendingPathComponent("whaler/seed.json").path) {
            problems.append("--fixtures \(fixtures): no whaler/seed.json there (run from the project directory or pass --fixtures)")
        }
        if !problems.isEmpty { throw BadInput(problems.joined(separator: "\n")) }
        s.live = live
        var options = LiveRunOptions(scenario: s, scenarioRef: ref, seed: seed ?? s.seed, fixtures: fixturesURL, reportsRoot: reportDir)
        options.shard = shardValue
        options.overrides = overrides
        options.salesforceUser = salesforceUser
        options.serverExecutable = ChildServer.selfExecutable
        options.progress = quiet ? .none : (isatty(1) != 0 ? .terminal : .lines)
        return options
    }

    static func parseDuration(_ text: String) -> Int? {
        var t = text
        var scale = 1.0
        if t.hasSuffix("ms") { t.removeLast(2) } else if t.hasSuffix("s") { t.removeLast(); scale = 1000 } else if t.hasSuffix("m") { t.removeLast(); scale = 60_000 } else { return nil }
        guard let v = Double(t), v.isFinite, v >= 0, v * scale <= 86_400_000 else { return nil }
        return Int((v * scale).rounded())
    }
}
