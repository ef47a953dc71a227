import ArgumentParser
import Foundation
import WhaleEmbedded
import WhaleReports
import WhaleRun
import WhaleSim
import WhaleTelemetry

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a scenario live: virtual clients on real sockets against a server and Salesforce.",
        discussion: """
            SCENARIO is a built-in name (\(BuiltinScenarios.names.joined(separator: ", "))) or a path to a .yml file; \
            without one, the built-in demo live-demo runs on the embedded server and fake Salesforce. The server and \
            Salesforce are embedded unless the scenario's live section or --server / --salesforce name URLs. \
            --repeat N runs seeds seed...seed+N-1 one after another (each writes its own run directory), \
            prints a line per run and a table, and writes a repeat directory (summary.json, report.html) \
            that report --compare accepts; its exit code is the worst run's, in the order 2 > 1 > 3 > 0. \
            Exit codes: 0 pass, 1 a latency or error threshold breached, 2 a checker found a violation, \
            3 inconclusive, 64 bad usage or input (also a --report-dir that cannot be written, found before \
            the run), 74 every check passed but the run's record could not be written (a full disk). \
            SIGINT or SIGTERM (Ctrl-C, a cancelled CI job) stops cleanly: the load ends, quiescence is awaited \
            at most 5 s, what was recorded is judged (a checker that could not finish says unknown), the record \
            and report are written marked interrupted, the embedded server is stopped and temporary files \
            removed; the exit code is then 3 (2 if a checker found a violation), and a repeat stops there. \
            A second signal stops the children and exits at once: 130 after SIGINT, 143 after SIGTERM. \
            Fixtures (the Whaler seed users, the Salesforce org): --fixtures DIR, else ./Fixtures, else \
            Fixtures/ beside the binary, else the copies built into it.

            Examples:
              whalesim run
              whalesim run live-demo --clients 30 --documents 3 --duration 25s
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

    @Option(
        name: .customLong("salesforce-user"), help: "username:password+securitytoken for a non-embedded Salesforce.")
    var salesforceUser: String?

    @Option(help: "Run slice i of N of the clients (i/N, 0-based), e.g. 0/4; combine the records with whalesim merge.")
    var shard: String?

    @Option(
        name: .customLong("repeat"),
        help: ArgumentHelp(
            "Run N seeds (seed...seed+N-1) one after another and summarise them; not with --shard.", valueName: "N"))
    var repeatCount: Int?

    @Option(
        name: .customLong("restart-command"),
        help: ArgumentHelp(
            "For a --server whalesim does not start: run by /bin/sh as 'COMMAND kill' when a server-restart or power-loss window opens and 'COMMAND start' when it closes (docs/lazyfs.md).",
            valueName: "COMMAND"))
    var restartCommand: String?

    @Option(
        name: .customLong("lazyfs-control"),
        help: ArgumentHelp(
            "For a --server whalesim does not start: the .lazyfs-control file of the whalesim lazyfs mount its data directory is on; a power-loss window writes drop there between kill and start.",
            valueName: "FILE"))
    var lazyfsControl: String?

    @Option(
        name: .customLong("server-backpressure-log"),
        help: ArgumentHelp(
            "For a --server whalesim does not start: the file where it logs the connections it marks slow (serve --backpressure-log's JSON lines), read into the history at the end, so a reproducer of a dropped broadcast places them.",
            valueName: "FILE"))
    var serverBackpressureLog: String?

    @Option(
        help: ArgumentHelp(
            "Play the recorded sessions of FILE (whalesim record or import-har) instead of the seeded behaviour, one per user, round robin (docs/sessions.md); without SCENARIO, on a scenario of their own.",
            valueName: "FILE"))
    var replay: String?

    @Option(help: "With --replay: how many users play the sessions (the scenario's clients).")
    var users: Int?

    @Option(help: "With --replay: how much faster than recorded the sessions play (2: twice as fast).")
    var speed: Double?

    @Option(
        name: .customLong("start-at"),
        help: ArgumentHelp(
            "Begin the load at TIME, after the setup: an ISO 8601 time with its zone (2026-11-28T23:00:00Z) or +SECONDS from whalesim's start; so the shards of an Indexed Job load together (docs/distributed-runs.md). Refused when already past; not with --repeat.",
            valueName: "TIME"))
    var startAt: String?

    @Option(
        help: ArgumentHelp(
            "Serve the run live on HOST:PORT while it runs: /metrics (Prometheus, OpenMetrics), / (a dashboard), /events, /health (docs/metrics.md). Port 0 picks a free one; loopback unless a host is given.",
            valueName: "HOST:PORT"))
    var listen: String?

    @Option(help: "Where run records go.")
    var reportDir = "Reports"

    @Option(
        name: .customLong("runner-threads"),
        help: ArgumentHelp(
            "Event loops of the load runner (1...256); default one per core. Fewer cost less CPU per op but leave less headroom for a reconnect storm (docs/decisions/0033-runner-event-loops-one-per-core.md).",
            valueName: "N"))
    var runnerThreads: Int?

    @Option(
        help:
            "The fixtures directory (whaler/seed.json, salesforce/small); default ./Fixtures, else Fixtures/ beside the binary, else the built-in copies."
    )
    var fixtures: String?

    @Flag(help: "No progress output while the load runs.")
    var quiet = false

    /// The run a first SIGINT or SIGTERM interrupts (the current one of a repeat).
    static let interruption = RunInterruption()

    @Flag(help: "Do not turn a correctness violation into a scripted simulator reproducer (see whalesim reproduce).")
    var noReproduce = false

    func run() async throws {
        defer { BuiltinFixtures.cleanUp() }
        let options: LiveRunOptions
        do { options = try makeOptions() } catch let e as BadInput { throw e.exit() }
        // Refused before anything starts: a taken or malformed address is a usage error.
        var view: LiveView?
        if let listen {
            do {
                view = try await LiveView.start(listen, title: "run \(options.scenario.name)")
            } catch {
                printError("whalesim: \(error)")
                throw ExitCode(error.exitCode)
            }
            printLine(view!.server.listeningNote)
        }
        Interrupts.install { Self.interruption.interrupt($0) }
        if let repeatCount {
            let code = await runRepeated(options, count: repeatCount, view: view)
            throw ExitCode(code)
        }
        let outcome = await runOnce(options, detail: true, view: view)
        if let verdict = outcome.verdictLine { print("verdict: \(verdict)") }
        if let view, let final = outcome.telemetry { await view.finish(final) }
        throw ExitCode(outcome.exitCode)
    }

    /// What one run left behind: its exit code, its run directory, its figures for a repeat.
    struct Outcome {
        var exitCode: Int32
        var directory: String?
        var verdict: String
        var verdictLine: String?
        var opAckP99Ms: Double?
        var wallSeconds: Double
        var error: String?
        /// With `--listen`: the run's last snapshot (its verdict and report), for the live view.
        var telemetry: TelemetrySnapshot? = nil
    }

    /// One live run with `options`: runs, records, prints (the full block when `detail`, or when a
    /// checker found a violation, so a repeat shows the evidence of a correctness failure).
    func runOnce(_ options: LiveRunOptions, detail: Bool, view: LiveView? = nil) async -> Outcome {
        let startedAt = Date()
        let run = LiveRun(options: options) { printLine($0) }
        Self.interruption.attach(run)
        view?.attach(run)
        let result: LiveRunResult
        do { result = try await run.run() } catch {
            printError("whalesim: the run could not start: \(error)")
            return Outcome(
                exitCode: ExitStatus.inconclusive.rawValue, directory: nil, verdict: "unknown", verdictLine: nil,
                opAckP99Ms: nil, wallSeconds: Date().timeIntervalSince(startedAt), error: "could not start: \(error)")
        }
        let wall = Date().timeIntervalSince(startedAt)
        let record = LiveRunRecord(result: result, options: options, startedAt: startedAt, wallSeconds: wall)
        if detail || result.exitCode == 2 { RunSummaryPrinter.print(result, record: record) }
        if let signal = result.interrupted {
            print("interrupted by \(signal): the record says so; exit \(result.exitCode)")
        }
        var dir: String?
        do {
            dir = try LiveRecordWriter.write(record, history: result.history, root: reportDir, startedAt: startedAt)
            if result.exitCode == ExitStatus.correctnessViolated.rawValue, !noReproduce {
                reproduceAfterRun(directory: dir!)
            }
            if detail { print("report: \(dir!)/report.html") }
        } catch {
            printError("whalesim: could not write the run's record, so its run directory is incomplete: \(error)")
        }
        let exitCode = ReportRoot.exitCode(verdict: result.exitCode, written: dir != nil)
        if exitCode != result.exitCode {
            printError("whalesim: exit \(exitCode): the verdict below was reached, but its record was not written")
        }
        let p99 = result.histograms["op_ack"].flatMap { $0.count > 0 ? $0.percentileMs(99) : nil }
        let verdictLine = RunSummaryPrinter.verdictLine(result)
        let telemetry = view.map { _ in
            run.finalTelemetry(
                result, verdict: ExitStatus.word(exitCode), verdictNote: verdictLine,
                reportURL: dir.map { "file://" + URL(fileURLWithPath: $0).appendingPathComponent("report.html").path })
        }
        return Outcome(
            exitCode: exitCode, directory: dir, verdict: result.verdict.rawValue,
            verdictLine: verdictLine, opAckP99Ms: p99, wallSeconds: wall, error: nil, telemetry: telemetry)
    }

    func makeOptions() throws -> LiveRunOptions {
        // `--replay FILE` alone runs the recorded sessions on a scenario of their own (ReplayRun).
        let ref = scenario ?? (replay != nil ? "" : "live-demo")
        var s: Scenario
        if ref.isEmpty {
            s = ReplayRun.scenario(file: replay!)
        } else {
            do { s = try BuiltinScenarios.load(ref) } catch { throw BadInput(error.description) }
        }
        var problems: [String] = []
        var overrides: [String] = []
        var live = s.live ?? LiveSpec()
        let plan = try ReplayRun.plan(
            scenario: &s, live: &live, file: replay, users: users, speed: speed, ownScenario: ref.isEmpty,
            durationGiven: duration != nil,
            overrides: &overrides, problems: &problems)
        if let clients {
            if (1...10_000).contains(clients) {
                s.clients = clients; overrides += ["--clients", "\(clients)"]
            } else {
                problems.append("--clients \(clients): must be 1...10000")
            }
        }
        if let documents {
            if (1...10_000).contains(documents) {
                s.documents = documents; overrides += ["--documents", "\(documents)"]
            } else {
                problems.append("--documents \(documents): must be 1...10000")
            }
        }
        if s.documents > s.clients {
            problems.append("\(s.documents) documents for \(s.clients) clients: every document needs a client")
        }
        if let runnerThreads {
            if LiveExecutor.validThreads.contains(runnerThreads) {
                overrides += ["--runner-threads", "\(runnerThreads)"]
            } else {
                problems.append("--runner-threads \(runnerThreads): must be 1...256")
            }
        }
        if let duration {
            if let ms = Self.parseDuration(duration), ms > 0 {
                live.durationMs = ms; overrides += ["--duration", duration]
            } else {
                problems.append("--duration \(duration): expected e.g. 30s, 2m or 500ms")
            }
        }
        if let server {
            if let u = URL(string: server), ["http", "https"].contains(u.scheme ?? ""), u.host != nil {
                live.server = .url(server.hasSuffix("/") ? String(server.dropLast()) : server);
                overrides += ["--server", server]
            } else {
                problems.append("--server \(server): expected an http(s) URL")
            }
        }
        if let salesforce {
            if let u = URL(string: salesforce), ["http", "https"].contains(u.scheme ?? ""), u.host != nil {
                live.salesforce = .url(salesforce); overrides += ["--salesforce", salesforce]
            } else {
                problems.append("--salesforce \(salesforce): expected an http(s) URL")
            }
        }
        if let repeatCount {
            if !(1...1000).contains(repeatCount) {
                problems.append("--repeat \(repeatCount): must be 1...1000")
            } else if UInt64.max - UInt64(repeatCount - 1) < (seed ?? s.seed) {
                problems.append("--repeat \(repeatCount): the seeds would pass 2^64-1")
            }
            if shard != nil {
                problems.append(
                    "--repeat and --shard cannot be combined: a repeat runs whole runs (run the shards of each seed and merge them instead)"
                )
            }
        }
        var startDate: Date?
        if let startAt {
            switch StartTime.parse(startAt, now: Date(), launched: StartTime.launched) {
            case .success(let date): startDate = date
            case .failure(let why): problems.append(why.description)
            }
            if repeatCount != nil {
                problems.append(
                    "--start-at and --repeat cannot be combined: only a repeat's first run could begin at that moment")
            }
        }
        if restartCommand != nil || lazyfsControl != nil, case .embedded = live.server {
            problems.append(
                "--restart-command and --lazyfs-control are for a --server whalesim does not start (the embedded server is restarted, and put on lazyfs, by whalesim itself)"
            )
        }
        if let serverBackpressureLog {
            if case .embedded = live.server {
                problems.append(
                    "--server-backpressure-log is for a --server whalesim does not start (the embedded server's log is read without it)"
                )
            } else {
                overrides += ["--server-backpressure-log", serverBackpressureLog]
            }
        }
        if let restartCommand, restartCommand.trimmingCharacters(in: .whitespaces).isEmpty {
            problems.append("--restart-command is empty")
        }
        // Raw: the replay command quotes every word (ShellCommand); quoting it here too quoted it twice.
        if let restartCommand { overrides += ["--restart-command", restartCommand] }
        if let lazyfsControl {
            if lazyfsControl.hasSuffix(".lazyfs-control") {
                overrides += ["--lazyfs-control", lazyfsControl]
            } else {
                problems.append(
                    "--lazyfs-control \(lazyfsControl): expected the .lazyfs-control file at the root of a whalesim lazyfs mount"
                )
            }
        }
        if case .url = live.salesforce, salesforceUser == nil {
            problems.append("a Salesforce URL needs --salesforce-user username:password+token")
        }
        var shardValue: (Int, Int)?
        if let shard {
            let parts = shard.split(separator: "/").map { Int($0) }
            if parts.count == 2, let i = parts[0], let n = parts[1], n >= 1, n <= 1000, (0..<n).contains(i) {
                shardValue = (i, n)
            } else {
                problems.append("--shard \(shard): expected i/N with 0 <= i < N, e.g. 0/4")
            }
        }
        var fixturesURL = URL(fileURLWithPath: "Fixtures")
        do {
            fixturesURL = try BuiltinFixtures.directory(given: fixtures, holding: "whaler/seed.json").url
        } catch {
            problems.append("cannot write the built-in fixtures to a temporary directory: \(error)")
        }
        if let fixtures, case .embedded = live.server,
            !FileManager.default.fileExists(atPath: fixturesURL.appendingPathComponent("whaler/seed.json").path)
        {
            problems.append("--fixtures \(fixtures): no whaler/seed.json there")
        }
        if let problem = ReportRoot.problem(reportDir) { problems.append(problem) }
        if !problems.isEmpty { throw BadInput(problems.joined(separator: "\n")) }
        s.live = live
        var options = LiveRunOptions(
            scenario: s, scenarioRef: ref, seed: seed ?? s.seed, fixtures: fixturesURL, reportsRoot: reportDir)
        options.shard = shardValue
        options.overrides = overrides
        options.salesforceUser = salesforceUser
        options.serverExecutable = ChildServer.selfExecutable
        options.restartCommand = restartCommand
        options.lazyfsControl = lazyfsControl
        options.serverBackpressureLog = serverBackpressureLog
        options.replayPlan = plan
        options.startAt = startDate
        options.progress = quiet ? .none : (isatty(1) != 0 ? .terminal : .lines)
        return options
    }
}
