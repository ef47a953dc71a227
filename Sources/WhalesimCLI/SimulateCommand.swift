import ArgumentParser
import WhaleTelemetry
import NIOConcurrencyHelpers
import Foundation
import WhaleProtocol
import WhaleSim

/// `whalesim simulate [SCENARIO]`: deterministic simulation of many clients under faults,
/// checked, replayable from its seed, shrunk to a small reproducer when it fails.
///
/// ```
/// whalesim simulate                                   # convergence-smoke, its own seed
/// whalesim simulate same-position-storm --seed 42 --fault client-tie-priority
/// whalesim simulate flaky-network --seeds 200          # 200 seeds across the cores
/// whalesim simulate path/to/scenario.yml
/// ```
struct SimulateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Run a deterministic, checked simulation (default scenario: convergence-smoke).",
        discussion: """
            SCENARIO is a built-in name (\(BuiltinScenarios.names.joined(separator: ", "))) or a path to a .yml file. \
            Exit codes: 0 every checker valid, 2 a checker found a violation, 3 inconclusive, 64 bad input \
            (also a --report-dir that cannot be written), 74 every checker valid but the record could not be written. \
            With --seeds, a terminal gets a progress bar on stderr (seeds done, failures so far, seeds/s, time \
            left), a log the plain lines; SIGINT or SIGTERM starts no further seed, lets those running finish, \
            reports and records what ran and exits 3 (2 if a seed failed); a second signal exits at once \
            (130 after SIGINT, 143 after SIGTERM).

            Examples:
              whalesim simulate convergence-smoke --seed 7
              whalesim simulate flaky-network --seeds 10
              whalesim simulate --list-faults
            """
    )

    @Argument(help: "A built-in scenario name or a path to a scenario .yml file.")
    var scenario: String?

    @Option(help: "The seed (default: the scenario's). The same seed replays the run exactly.")
    var seed: UInt64?

    @Option(help: "Run this many seeds (seed, seed+1, ...) in parallel across the cores.")
    var seeds: Int?

    @Option(name: .customLong("fault"), help: "Switch on a fault from the catalog (repeatable; see --list-faults).")
    var faults: [String] = []

    @Flag(help: "List the fault catalog and exit.")
    var listFaults = false

    @Option(help: "Override the number of clients.")
    var clients: Int?

    @Option(help: "Override the number of documents.")
    var documents: Int?

    @Option(help: "Override the number of client edits in the safety phase.")
    var ops: Int?

    @Option(help: "Cap every network delay at this many ticks.")
    var delayMax: Int?

    @Option(help: "Override the bound on a link's queue past which the client counts as slow.")
    var queueBound: Int?

    @Option(
        name: .customLong("sqlite-synchronous"),
        help: ArgumentHelp(
            "The simulated server's storage sync level, as `serve --sqlite-synchronous`: full, normal or off (what a power-loss nemesis takes).",
            valueName: "LEVEL"))
    var sqliteSynchronous: String?

    @Option(name: .customLong("without-nemesis"), help: "Drop the scenario's nemeses of this kind (repeatable).")
    var withoutNemeses: [String] = []

    @Option(help: "Model scenarios: how many of the first clients are on the board (the others are on account pages).")
    var board: Int?

    @Option(help: "Model scenarios: how many accounts the account-page clients are spread over.")
    var accounts: Int?

    @Flag(help: "Model scenarios: only the model workloads (every other action of the mix weighs 0).")
    var modelOnly = false

    @Flag(help: "Do not shrink a failing run.")
    var noShrink = false

    @Option(
        help: ArgumentHelp(
            "Serve the seeds' progress live on HOST:PORT while they run: /metrics (whalesim_seeds_total, whalesim_seed_failures_total), a dashboard at /, /events, /health. Port 0 picks a free one.",
            valueName: "HOST:PORT"))
    var listen: String?

    @Option(help: "Where run records go.")
    var reportDir = "Reports"

    func run() async throws {
        if listFaults {
            for line in FaultCatalog.listing { print(line) }
            return
        }
        let plan: SimulationPlan
        do {
            plan = try makePlan()
        } catch let error as BadInput {
            throw error.exit()
        }
        if let problem = ReportRoot.problem(reportDir) { throw BadInput(problem).exit() }
        let view: ProgressView?
        if let listen {
            let labels = RunLabels(
                scenario: plan.scenario.name, seed: String(plan.firstSeed),
                runID: "simulate-" + String(Int64(Date().timeIntervalSince1970 * 1000), radix: 36))
            do {
                view = try await ProgressView.start(
                    listen, labels: labels,
                    title: "simulate \(plan.scenarioRef) (\(plan.seedCount) seeds from \(plan.firstSeed))",
                    phase: "simulating", families: [MetricCatalog.seeds, MetricCatalog.seedFailures])
            } catch {
                printError("whalesim: \(error)")
                throw ExitCode(error.exitCode)
            }
            printLine(view!.server.listeningNote)
        } else {
            view = nil
        }
        let stop = StopRequest()
        if plan.seedCount > 1 { Interrupts.install { stop.set($0) } }
        plan.printOptions()
        // Progress reaches a log (a pipe, a CI job) as it happens, not when the buffer fills.
        fflush(nil)
        let startedAt = Date()
        let style: SimulationPlan.ProgressStyle = plan.seedCount > 1 && isatty(2) != 0 ? .bar : .lines
        let counts = NIOLockedValueBox((done: 0, failed: 0))
        let outcome = await plan.execute(
            progress: {
                print($0); fflush(nil)
            }, style: style, interrupted: { stop.value },
            onSeed: { _, verdict in
                guard let view else { return }
                let now = counts.withLockedValue { c in
                    c.done += 1
                    if verdict != .valid { c.failed += 1 }
                    return c
                }
                view.update {
                    $0.set(MetricCatalog.seeds, now.done)
                    $0.set(MetricCatalog.seedFailures, now.failed)
                }
            })
        let directory = NIOLockedValueBox<String?>(nil)
        let exit = plan.finish(outcome, reportDir: reportDir, startedAt: startedAt) { dir in
            directory.withLockedValue { $0 = dir }
        }
        if let view {
            let report = directory.withLockedValue { $0 }.map {
                "file://" + URL(fileURLWithPath: $0).appendingPathComponent("report.html").path
            }
            await view.finish(verdict: ExitStatus.word(exit.rawValue), note: nil, reportURL: report)
        }
        throw exit
    }

    /// Validates the options and the scenario into a plan (every problem is exit 64).
    func makePlan() throws -> SimulationPlan {
        let ref = scenario ?? "convergence-smoke"
        let base: Scenario
        do {
            base = try BuiltinScenarios.load(ref)
        } catch {
            throw BadInput(error.description)
        }
        var problems: [String] = []
        var overrides = ScenarioOverrides(
            clients: clients, documents: documents, ops: ops, delayMax: delayMax, queueBound: queueBound,
            boardClients: board, accounts: accounts, modelOnly: modelOnly)
        for name in faults {
            if let fault = Fault(rawValue: name) {
                overrides.faults.append(fault)
            } else {
                problems.append(
                    "--fault \(name): unknown fault (catalog: \(FaultCatalog.names.joined(separator: ", ")))")
            }
        }
        if let sqliteSynchronous {
            if let level = StorageSync(rawValue: sqliteSynchronous) {
                overrides.storageSync = level
            } else {
                problems.append(
                    "--sqlite-synchronous \(sqliteSynchronous): expected one of \(StorageSync.allCases.map(\.rawValue).joined(separator: ", "))"
                )
            }
        }
        for name in withoutNemeses {
            if let kind = NemesisSpec.Kind(rawValue: name) {
                overrides.withoutNemeses.append(kind)
            } else {
                problems.append(
                    "--without-nemesis \(name): expected one of \(NemesisSpec.Kind.allCases.map(\.rawValue).joined(separator: ", "))"
                )
            }
        }
        if let clients, !(1...10_000).contains(clients) { problems.append("--clients \(clients): expected 1...10000") }
        if let documents, !(1...10_000).contains(documents) {
            problems.append("--documents \(documents): expected 1...10000")
        }
        if let ops, ops < 0 { problems.append("--ops \(ops): expected 0 or more") }
        if let queueBound, !(1...1_000_000).contains(queueBound) {
            problems.append("--queue-bound \(queueBound): expected 1...1000000")
        }
        if let delayMax, delayMax < 0 { problems.append("--delay-max \(delayMax): expected 0 or more") }
        let clientCount = clients ?? base.clients
        if let documents, clientCount >= 1, documents > clientCount {
            problems.append(
                "--documents \(documents): more documents than the \(clientCount) clients (every document needs a client)"
            )
        }
        if base.model == nil {
            if board != nil { problems.append("--board: \(ref) has no model section") }
            if accounts != nil { problems.append("--accounts: \(ref) has no model section") }
            if modelOnly { problems.append("--model-only: \(ref) has no model section") }
        }
        if let board, !(0...10_000).contains(board) { problems.append("--board \(board): expected 0...10000") }
        if let accounts, !(1...1_000).contains(accounts) {
            problems.append("--accounts \(accounts): expected 1...1000")
        }
        if let seeds, !(1...1_000_000).contains(seeds) { problems.append("--seeds \(seeds): expected 1...1000000") }
        guard problems.isEmpty else { throw BadInput(problems.joined(separator: "\n  ")) }
        return SimulationPlan(
            scenarioRef: ref, base: base, overrides: overrides, firstSeed: seed ?? base.seed,
            seedCount: seeds ?? 1, shrink: !noShrink)
    }
}

/// The first signal's name, set from the signal handler, read between seeds.
final class StopRequest: @unchecked Sendable {
    private let lock = NSLock()
    private var signal: String?
    func set(_ name: String) { lock.withLock { if signal == nil { signal = name } } }
    var value: String? { lock.withLock { signal } }
}
