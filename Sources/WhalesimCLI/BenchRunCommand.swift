import ArgumentParser
import Foundation
import WhaleBench
import NIOCore
import NIOConcurrencyHelpers
import WhaleLoad
import WhaleEmbedded
import WhaleRun
import WhaleSim
import WhaleTelemetry

/// `whalesim bench run`: the load runner's own scale, against `whalesim serve` in a second
/// process. Three phases: op latency with 1,000 clients typing 2 ops/s in notes of 10; runner
/// memory per client with 10,000 clients connected; and the runner's ceiling, the largest op
/// rate it sustains before op→ack latency doubles, as a ratio of the raw websocket echo rate
/// measured in the same run.
///
/// ```
/// swift build -c release && .build/release/whalesim bench run --runs 3
/// ```
struct BenchRunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract:
            "Latency, memory per client and ceiling of the live load runner against `whalesim serve` in a second process.",
        discussion: """
            Targets (issue 9): 10,000 concurrent virtual clients with at most 64 KB of runner memory per client; with \
            1,000 clients typing 2 ops/s in notes of 10, op→ack p99 ≤ 20 ms and op→remote-apply p99 ≤ 40 ms; the \
            runner's ceiling (the offered rate it keeps up with, runner_lag p99 within --lag-bound) as a ratio of the \
            raw echo rate. Issue 21: the runner's CPU seconds per 1,000 ops and frames per CPU-second over the steady \
            window, beside bare LeanSocket clients sending the same frames on the same schedule (no OT, no record); \
            targets: at least 0.5× the bare client's frames per CPU-second, at most 0.4 of a core at 2,000 ops/s.

            Examples:
              swift run -c release whalesim bench run
              swift run -c release whalesim bench run --latency-clients 100 \\
                --memory-clients 0 --ceiling-clients 0 --seconds 5 --runs 1
            """)

    @Option(name: .customLong("latency-clients"), help: "Clients of the latency phase.")
    var latencyClients = 1_000
    @Option(name: .customLong("note-size"), help: "Clients per note in the latency phase.")
    var noteSize = 10
    @Option(name: .customLong("ops-per-second"), help: "Ops each client types per second in the latency phase.")
    var opsPerSecond = 2.0
    @Option(name: .customLong("memory-clients"), help: "Clients held for the memory phase (0 skips it).")
    var memoryClients = 10_000
    @Option(name: .customLong("ceiling-clients"), help: "Clients of the ceiling phase (0 skips it).")
    var ceilingClients = 200
    @Option(help: "Seconds of steady load per measurement.")
    var seconds = 15
    @Option(help: "Runs of the latency phase (medians are reported).")
    var runs = 3
    @Option(
        name: .customLong("socket-memory"),
        help: "Sockets of each client kind opened to compare memory per connection (0 skips it).")
    var socketMemory = 2_000
    @Option(
        name: .customLong("lag-bound"),
        help: "The runner_lag p99 (ms) under which the ceiling phase says the runner keeps up.")
    var lagBound = 50
    @Flag(
        inversion: .prefixedNo,
        help: "Measure bare LeanSocket clients beside the virtual clients (the frames-per-CPU-second yardstick).")
    var bare = true

    @Flag(help: "Measure the floor too: the bare clients' frames on plain epoll and system calls, no NIO (Linux).")
    var floor = false
    @Flag(
        name: .customLong("listen-scraped"),
        help:
            "Run each latency run twice, alternating: as is, and served live (run --listen) with curl scraping /metrics every second; print the runner's CPU per 1,000 ops of each and their ratio."
    )
    var listenScraped = false
    @Option(
        name: .customLong("protocol"),
        help:
            "Protocols of the latency phase: 1 (the original: no cursor traffic), 2 (cursor sharing, op ids), or both (repeatable)."
    )
    var protocols: [Int] = [1, 2]
    @Option(
        name: .customLong("runner-threads"),
        help: ArgumentHelp(
            "Event loops of the runner and of the bare clients (1...256); default one per core.", valueName: "N"))
    var runnerThreads: Int?
    @Option(
        name: .customLong("timer-grid"),
        help: ArgumentHelp(
            "The virtual users' timer grid in ms (live.timer-grid, 0...100): their pauses end on its steps; 0 ends each at its own instant.",
            valueName: "MS"))
    var timerGrid = LiveSpec().timerGridMs
    @Option(
        name: .customLong("runner-loop"),
        help: ArgumentHelp(
            "What carries the virtual users' note sockets and pauses (live.runner-loop): nio (NIO's event loops) or epoll (whalesim's own loops).",
            valueName: "nio|epoll"))
    var runnerLoop = LiveSpec().runnerLoop.rawValue

    func run() async throws {
        guard latencyClients == 0 || latencyClients >= noteSize, noteSize >= 2, opsPerSecond > 0, seconds >= 1,
            runs >= 1, memoryClients >= 0, ceilingClients >= 0, lagBound >= 1
        else {
            throw BadInput(
                "need --latency-clients ≥ --note-size ≥ 2, --ops-per-second > 0, --seconds ≥ 1, --runs ≥ 1, --lag-bound ≥ 1 (ms)"
            ).exit()
        }
        if let runnerThreads, !LiveExecutor.validThreads.contains(runnerThreads) {
            throw BadInput("--runner-threads \(runnerThreads): must be 1...256").exit()
        }
        guard (0...100).contains(timerGrid) else {
            throw BadInput("--timer-grid \(timerGrid): must be 0...100 (ms)").exit()
        }
        guard RunnerLoop(rawValue: runnerLoop) != nil else {
            throw BadInput("--runner-loop \(runnerLoop): must be nio or epoll").exit()
        }
        guard !protocols.isEmpty, protocols.allSatisfy({ $0 == 1 || $0 == 2 }) else {
            throw BadInput("--protocol is 1 or 2").exit()
        }
        if floor, latencyClients == 0 || !protocols.contains(2) {
            throw BadInput(
                "--floor measures beside the latency phase's protocol 2 run: give --latency-clients > 0 and --protocol 2"
            ).exit()
        }
        guard memoryClients <= 10_000, latencyClients <= 10_000, ceilingClients <= 10_000 else {
            throw BadInput("at most 10,000 clients a phase").exit()
        }
        let most = max(latencyClients, ceilingClients, memoryClients, socketMemory)
        // No phase restarts the server or drops connections: no redial storm to make room for.
        if let shortfall = OpenFiles.shortfall(clients: most, documents: max(1, most / noteSize), storms: false) {
            throw BadInput(shortfall).exit()
        }
        if !isReleaseBuild { printError("warning: a debug build; quote only release figures (swift build -c release)") }
        defer { BuiltinFixtures.cleanUp() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "whalesim-bench-run-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        print(
            "whalesim bench run: \(latencyClients) clients at \(opsPerSecond) ops/s in notes of \(noteSize), \(memoryClients) held, ceiling with \(ceilingClients); \(seconds) s, \(runs) runs; runner threads \(NIOSingletons.groupLoopCountSuggestion), timer grid \(timerGrid) ms, runner loop \(runnerLoop)"
        )

        // 0. Memory per connection: the lean NIO client against hummingbird-websocket's.
        if socketMemory > 0 {
            let raw = try ChildServer(["bench", "raw-server", "--mode", "echo"])
            defer { raw.stop() }
            for kind in ["lean", "hummingbird"] {
                let before = Self.residentBytes()
                var lean: [LeanSocket] = [], hb: [LiveSocket] = []
                for i in 0..<socketMemory {
                    if kind == "lean" {
                        let s = LeanSocket(url: raw.socketURL, onText: { _ in })
                        lean.append(s)
                        if i % 200 == 199 { _ = await s.connected(timeout: .seconds(10)) }
                    } else {
                        let s = LiveSocket(url: raw.socketURL) { _ in }
                        hb.append(s)
                        if i % 200 == 199 { _ = await s.connected(timeout: .seconds(10)) }
                    }
                }
                var open = 0
                for s in lean where await s.connected(timeout: .seconds(10)) { open += 1 }
                for s in hb where await s.connected(timeout: .seconds(10)) { open += 1 }
                for s in lean { s.send("ping") }
                for s in hb { s.send("ping") }
                try await Task.sleep(for: .seconds(1))
                let after = Self.residentBytes()
                print(
                    String(
                        format: "socket memory, %@ client: %d open, %.1f KB per connection", kind, open,
                        Double(after - before) / Double(max(1, open)) / 1024))
                for s in lean { await s.close() }
                for s in hb { await s.close() }
            }
        }

        // 1. Latency, for each protocol asked for: the original (the Whaler app's traffic: one
        // frame per op each way) and protocol 2 (cursor sharing: each op's broadcast carries its
        // author's cursor, op ids ride along, and every join exchanges cursorUpdates).
        // Two readings per run: the whole run, ramp-up included, and the steady window from two
        // seconds after the last client joined to the end of the load ("1,000 clients typing").
        var fullWindows: [RunnerCPUSampler.Window] = []
        for version in protocols where latencyClients > 0 {
            var ackP99: [Double] = [], remoteP99: [Double] = [], steadyAck: [Double] = [], steadyRemote: [Double] = []
            var windows: [RunnerCPUSampler.Window] = [], listened: [RunnerCPUSampler.Window] = []
            let label = version == 1 ? "original protocol" : "protocol 2 with cursor sharing"
            for run in 1...runs {
                let server = try serve(directory, "latency\(version)-\(run)")
                defer { server.stop() }
                let think = Int(1000 / opsPerSecond)
                let (r, window) = try await live(
                    server, clients: latencyClients, documents: latencyClients / noteSize, rampMs: 10_000,
                    think: .uniform(min: think * 9 / 10, max: think * 11 / 10), mix: [.paste: 1],
                    checkers: [.convergence, .intention, .revisions],
                    protocolVersion: version)
                let ack = r.histograms["op_ack"]?.percentileMs(99) ?? .nan,
                    remote = r.histograms["op_remote_apply"]?.percentileMs(99) ?? .nan
                let sAck = Self.steady(r, "op_ack", clients: latencyClients),
                    sRemote = Self.steady(r, "op_remote_apply", clients: latencyClients)
                let rate = Double(sAck?.count ?? 0) / Double(max(1, Self.steadySeconds(r, clients: latencyClients)))
                ackP99.append(ack); remoteP99.append(remote)
                steadyAck.append(sAck?.percentileMs(99) ?? .nan); steadyRemote.append(sRemote?.percentileMs(99) ?? .nan)
                if let window { windows.append(window) }
                print(
                    String(
                        format:
                            "  %@, run %d: whole run op→ack p99 %.2f ms, op→remote-apply p99 %.2f ms; steady (%d s, %.0f acks/s) op→ack p50 %.2f p99 %.2f ms, op→remote-apply p50 %.2f p99 %.2f ms; verdict %@",
                        label, run, ack, remote, Self.steadySeconds(r, clients: latencyClients), rate,
                        sAck?.percentileMs(50) ?? .nan, sAck?.percentileMs(99) ?? .nan,
                        sRemote?.percentileMs(50) ?? .nan, sRemote?.percentileMs(99) ?? .nan, r.verdict.rawValue))
                if let window { print("    " + Self.describe(window, runner: "runner")) }
                for c in r.results where c.verdict != .valid {
                    for line in c.evidence.prefix(3) { print("      \(c.checker.rawValue): \(line)") }
                }
                if listenScraped {
                    // The same run with the live view on and scraped every second, right after, on a fresh server.
                    let server = try serve(directory, "latency\(version)-\(run)-listen")
                    defer { server.stop() }
                    let (_, served) = try await live(
                        server, clients: latencyClients, documents: latencyClients / noteSize, rampMs: 10_000,
                        think: .uniform(min: think * 9 / 10, max: think * 11 / 10), mix: [.paste: 1],
                        checkers: [.convergence, .intention, .revisions], protocolVersion: version, listen: true)
                    if let served {
                        listened.append(served)
                        print("    " + Self.describe(served, runner: "runner with --listen, scraped every second"))
                    }
                }
            }
            if !listened.isEmpty, !windows.isEmpty {
                let plain = median(windows.map(\.cpuSecondsPer1000Ops)),
                    served = median(listened.map(\.cpuSecondsPer1000Ops))
                print(
                    String(
                        format:
                            "live view cost, %@ (medians of %d): %.3f CPU s per 1,000 ops without, %.3f with --listen and a scrape a second: %.3f× (budget ≤ 1.05×)",
                        label, min(windows.count, listened.count), plain, served, served / plain))
            }
            print(
                String(
                    format:
                        "latency, %@, %d clients, notes of %d, %.1f ops/s each (median of %d): steady op→ack p99 %.2f ms (target ≤ 20), op→remote-apply p99 %.2f ms (target ≤ 40); whole run with ramp-up %.2f and %.2f ms",
                    label, latencyClients, noteSize, opsPerSecond, runs, median(steadyAck), median(steadyRemote),
                    median(ackP99), median(remoteP99)))
            if !windows.isEmpty {
                print(
                    String(
                        format:
                            "runner cost, %@ (median of %d): %.3f CPU s per 1,000 ops, %.0f frames per CPU-second, %.2f cores at %.0f ops/s (target ≤ 0.4 at 2,000 ops/s)",
                        label, windows.count, median(windows.map(\.cpuSecondsPer1000Ops)),
                        median(windows.map(\.framesPerCPUSecond)),
                        median(windows.map(\.cores)), median(windows.map(\.opsPerSecond))))
            }
            if version == 2 { fullWindows = windows }
        }

        // 1b. The bare client: the same frames on the same schedule through the same server, with
        // no OT, no record and no metrics. Its frames per CPU-second are the yardstick.
        if latencyClients > 0, !fullWindows.isEmpty, bare {
            var windows: [RunnerCPUSampler.Window] = []
            for run in 1...runs {
                let server = try serve(directory, "bare-\(run)")
                defer { server.stop() }
                let (token, _, accounts) = try await BenchAccounts.signIn(server, accounts: latencyClients / noteSize)
                let r = try await BareNoteLoad.run(
                    url: server.socketURL, token: token, accounts: accounts, clients: latencyClients,
                    noteSize: noteSize, thinkMs: Int(1000 / opsPerSecond), seconds: seconds)
                windows.append(r.window)
                print(
                    "  bare LeanSocket clients, run \(run): \(r.joined) of \(latencyClients) joined; "
                        + Self.describe(r.window, runner: "bare client"))
            }
            let full = median(fullWindows.map(\.framesPerCPUSecond)),
                yardstick = median(windows.map(\.framesPerCPUSecond))
            print(
                String(
                    format:
                        "bare LeanSocket client (median of %d): %.3f CPU s per 1,000 ops, %.0f frames per CPU-second, %.2f cores at %.0f ops/s",
                    windows.count, median(windows.map(\.cpuSecondsPer1000Ops)), yardstick, median(windows.map(\.cores)),
                    median(windows.map(\.opsPerSecond))))
            print(
                String(
                    format:
                        "generator: the full virtual client handles %.2f× the frames per CPU-second of the bare client (target ≥ 0.5)",
                    full / yardstick))
        }

        // 1c. The floor: the same frames on plain system calls, no NIO and no Swift task per
        // socket. What it spends is the kernel's work per frame and little more: the least any
        // client of this traffic can use here, whatever it is built on.
        if latencyClients > 0, !fullWindows.isEmpty, floor {
            #if canImport(Glibc)
                // Then the same floor doing the virtual client's own work (its session: decode, OT,
                // cursors, encode): the floor with the session, against the floor, splits the full
                // client's overhead into its own work and everything else (NIO, tasks, the record).
                var windows: [RunnerCPUSampler.Window] = [], sessionWindows: [RunnerCPUSampler.Window] = []
                let loops = NIOSingletons.groupLoopCountSuggestion
                for run in 1...runs {
                    for session in [false, true] {
                        let server = try serve(directory, "floor-\(run)\(session ? "-session" : "")")
                        defer { server.stop() }
                        let (token, _, accounts) = try await BenchAccounts.signIn(
                            server, accounts: latencyClients / noteSize)
                        let r = try await FloorNoteLoad.run(
                            url: server.socketURL, token: token, accounts: accounts, clients: latencyClients,
                            noteSize: noteSize, thinkMs: Int(1000 / opsPerSecond), seconds: seconds, loops: loops,
                            session: session)
                        if session { sessionWindows.append(r.window) } else { windows.append(r.window) }
                        let kind = session ? "floor clients with the session" : "floor (epoll) clients"
                        print(
                            "  \(kind), run \(run): \(r.joined) of \(latencyClients) joined; "
                                + Self.describe(r.window, runner: session ? "floor+session client" : "floor client"))
                    }
                }
                let full = median(fullWindows.map(\.framesPerCPUSecond)),
                    yardstick = median(windows.map(\.framesPerCPUSecond))
                print(
                    String(
                        format:
                            "floor, plain epoll and system calls (median of %d): %.3f CPU s per 1,000 ops, %.0f frames per CPU-second, %.2f cores at %.0f ops/s on %d thread(s)",
                        windows.count, median(windows.map(\.cpuSecondsPer1000Ops)), yardstick,
                        median(windows.map(\.cores)), median(windows.map(\.opsPerSecond)), loops))
                print(
                    String(
                        format:
                            "floor with the virtual client's session (median of %d): %.3f CPU s per 1,000 ops, %.0f frames per CPU-second, %.2f cores at %.0f ops/s on %d thread(s)",
                        sessionWindows.count, median(sessionWindows.map(\.cpuSecondsPer1000Ops)),
                        median(sessionWindows.map(\.framesPerCPUSecond)),
                        median(sessionWindows.map(\.cores)), median(sessionWindows.map(\.opsPerSecond)), loops))
                print(
                    String(
                        format: "the full virtual client handles %.2f× the frames per CPU-second of the floor",
                        full / yardstick))
            #else
                throw BadInput("--floor: the floor client is written for Linux (epoll)").exit()
            #endif
        }

        // 2. Memory per client.
        if memoryClients > 0 {
            let server = try serve(directory, "memory")
            defer { server.stop() }
            let (perClient, peak, held) = try await memory(server)
            print(
                String(
                    format:
                        "memory: %d of %d clients held at once; runner RSS grew %.1f MB = %.1f KB per client (target ≤ 64)",
                    held, memoryClients, Double(peak) / 1e6, perClient / 1024))
        }

        // 3. Ceiling: the largest offered rate the runner keeps up with, judged by its own
        // scheduling lag (runner_lag p99 over the steady window within --lag-bound), not by the
        // server's latency, which says as much about the server as about the runner.
        if ceilingClients > 0 {
            let raw = try ChildServer(["bench", "raw-server", "--mode", "echo"])
            let echo = try await SocketLoad.rawEcho(
                url: raw.socketURL, clients: ceilingClients, seconds: Double(seconds) / 2)
            raw.stop()
            var ceiling = 0.0
            for think in [400, 200, 100, 50, 25, 12, 6, 3] {
                let server = try serve(directory, "ceiling\(think)")
                defer { server.stop() }
                let (r, window) = try await live(
                    server, clients: ceilingClients, documents: max(1, ceilingClients / noteSize), rampMs: 2_000,
                    think: .uniform(min: think * 9 / 10, max: think * 11 / 10), mix: [.paste: 1],
                    checkers: [.convergence])
                let offered = Double(ceilingClients) * 1000 / Double(think)
                let lag = Self.steady(r, "runner_lag", clients: ceilingClients)?.percentileMs(99) ?? .infinity
                let achieved = window?.opsPerSecond ?? 0
                // A user's cycle is its think time plus the action itself, so even an idle runner acks about
                // 90% of clients / think: falling behind is well under that, not a hair under it.
                let ok = lag <= Double(lagBound) && achieved >= 0.8 * offered
                print(
                    String(
                        format: "  offered %5.0f ops/s: %5.0f acks/s, runner_lag p99 %.1f ms, op→ack p50 %.2f ms%@%@",
                        offered, achieved, lag,
                        Self.steady(r, "op_ack", clients: ceilingClients)?.percentileMs(50) ?? .nan,
                        window.map { "; " + Self.describe($0, runner: "runner") } ?? "",
                        ok ? "" : (lag > Double(lagBound) ? " (lag past the bound)" : " (fell behind the offered rate)")
                    ))
                if ok { ceiling = max(ceiling, achieved) } else { break }
            }
            print(
                String(
                    format:
                        "ceiling: %.0f ops/s offered with runner_lag p99 ≤ %d ms = %.2f× the raw echo rate (%.0f round trips/s, %d clients)",
                    ceiling, lagBound, echo > 0 ? ceiling / echo : 0, echo, ceilingClients))
        }
    }

    static func describe(_ w: RunnerCPUSampler.Window, runner: String) -> String {
        String(
            format:
                "%@ %.2f cores over %.1f s at %.0f ops/s: %.3f CPU s per 1,000 ops, %.0f frames per CPU-second (%.1f frames per op)",
            runner, w.cores, w.seconds, w.opsPerSecond, w.cpuSecondsPer1000Ops, w.framesPerCPUSecond,
            Double(w.frames) / Double(max(1, w.ops)))
    }

    private func serve(_ directory: URL, _ name: String) throws -> ChildServer {
        try ChildServer([
            "serve", "--port", "0", "--database", directory.appendingPathComponent("\(name).sqlite").path,
            "--bcrypt-cost", "4",
            "--max-messages-per-second", "0", "--max-connections", "20000", "--log-level", "error",
        ])
    }

    private func scenario(
        clients: Int, documents: Int, rampMs: Int, think: DelayDistribution, mix: [ActionMix.Action: Int],
        checkers: [CheckerName],
        durationMs: Int, protocolVersion: Int = 2
    ) -> Scenario {
        var s = Scenario(name: "bench-run")
        s.mode = .live
        s.protocolVersion = protocolVersion
        s.clients = clients
        s.documents = documents
        s.pasteSize = 1...3
        s.mix = ActionMix(mix)
        s.checkers = checkers
        var live = LiveSpec()
        live.durationMs = durationMs
        live.load = .ramp(upMs: rampMs)
        live.thinkTime = think
        live.importPages = 0
        live.quiescenceMs = 30_000
        live.timerGridMs = timerGrid
        live.runnerLoop = RunnerLoop(rawValue: runnerLoop) ?? .nio
        s.live = live
        return s
    }

    /// The fixtures the live runs read (the Whaler seed, the small Salesforce org) as `whalesim run` finds
    /// them: `./Fixtures`, else `Fixtures/` beside the binary, else the built-in copies. A bench run started
    /// outside the project's directory used to stop at once on a missing `./Fixtures`.
    private static func fixtures() throws -> URL {
        try BuiltinFixtures.directory(given: nil, holding: "whaler/seed.json").url
    }

    /// One live run against `server`, with the runner's CPU sampled throughout; the window is
    /// the steady one (from two seconds after the last client joined to the end of the load).
    private func live(
        _ server: ChildServer, clients: Int, documents: Int, rampMs: Int, think: DelayDistribution,
        mix: [ActionMix.Action: Int], checkers: [CheckerName], protocolVersion: Int = 2, listen: Bool = false
    ) async throws -> (LiveRunResult, RunnerCPUSampler.Window?) {
        var s = scenario(
            clients: clients, documents: documents, rampMs: rampMs, think: think, mix: mix, checkers: checkers,
            durationMs: rampMs + seconds * 1000, protocolVersion: protocolVersion)
        s.live?.server = .url(server.baseURL)
        var options = LiveRunOptions(
            scenario: s, scenarioRef: "bench", seed: 1, fixtures: try Self.fixtures(), reportsRoot: "")
        options.progress = .none
        let run = LiveRun(options: options) { _ in }
        let clock = run.metrics.clock
        let sampler = RunnerCPUSampler(nowMs: { clock.nowMs }, frames: { run.framesHandled })
        defer { sampler.stop() }
        var scraper: Task<Void, Never>?
        var view: TelemetryServer?
        if listen {
            let server = try await TelemetryServer.start(listen: "127.0.0.1:0") { run.telemetrySnapshot() }
            view = server
            // Prometheus' part, out of this process as Prometheus is: one GET of /metrics a second.
            let url = server.url + "metrics"
            scraper = Task.detached {
                while !Task.isCancelled {
                    let curl = Process()
                    curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
                    curl.arguments = ["-s", "-o", "/dev/null", "--max-time", "2", url]
                    try? curl.run()
                    curl.waitUntilExit()
                    try? await Task.sleep(for: .seconds(1))
                }
            }
        }
        let r = try await run.run()
        scraper?.cancel()
        await view?.stop()
        guard let start = Self.steadyStart(r, clients: clients), let acked = r.series.counters["ops_acked"] else {
            return (r, nil)
        }
        let n = Self.steadySeconds(r, clients: clients)
        let ops = acked[start..<min(acked.count, start + n)].reduce(0, +)
        return (
            r, sampler.window(fromMs: start * LiveMetrics.bucketMs, toMs: (start + n) * LiveMetrics.bucketMs, ops: ops)
        )
    }

    /// Runner RSS growth per connected client with `memoryClients` mostly idle clients held.
    private func memory(_ server: ChildServer) async throws -> (perClient: Double, growth: Int, held: Int) {
        var s = scenario(
            clients: memoryClients, documents: max(1, memoryClients / noteSize), rampMs: 60_000,
            think: .uniform(min: 20_000, max: 40_000), mix: [.paste: 1], checkers: [.convergence], durationMs: 70_000)
        s.live?.server = .url(server.baseURL)
        var options = LiveRunOptions(
            scenario: s, scenarioRef: "bench", seed: 1, fixtures: try Self.fixtures(), reportsRoot: "")
        options.progress = .none
        let run = LiveRun(options: options) { _ in }
        let finished = NIOLockedValueBox(false)
        let task = Task {
            defer { finished.withLockedValue { $0 = true } }
            return try await run.run()
        }
        var start: Int?
        var peak = 0, held = 0
        // Until the run ends: RSS when the first client is up, and the most while the most are up.
        while !finished.withLockedValue({ $0 }) {
            try await Task.sleep(for: .milliseconds(200))
            let connected = run.metrics.connected
            let rss = Self.residentBytes()
            if start == nil, connected > 0 { start = rss }
            if start != nil, connected >= held { held = connected; peak = max(peak, rss) }
        }
        _ = try await task.value
        let growth = peak - (start ?? peak)
        return (Double(growth) / Double(max(1, held)), growth, held)
    }

    /// The first second-bucket with every client connected, plus two: the steady window's start.
    static func steadyStart(_ r: LiveRunResult, clients: Int) -> Int? {
        r.series.connected.firstIndex { $0 >= clients }.map { $0 + 2 }
    }

    /// Seconds in the steady window (buckets with acks from its start on).
    static func steadySeconds(_ r: LiveRunResult, clients: Int) -> Int {
        guard let start = steadyStart(r, clients: clients), let acked = r.series.counters["ops_acked"],
            start < acked.count
        else { return 0 }
        return acked[start...].filter { $0 > 0 }.count
    }

    /// One latency's histogram over the steady window, from the run's per-second histograms.
    static func steady(_ r: LiveRunResult, _ name: String, clients: Int) -> LatencyHistogram? {
        guard let buckets = r.bucketHistograms[name], let start = steadyStart(r, clients: clients),
            start < buckets.count
        else { return nil }
        var total = LatencyHistogram()
        for pairs in buckets[start...] where !pairs.isEmpty {
            guard let h = try? LatencyHistogram(encoded: pairs) else { return nil }
            total.add(h)
        }
        return total.count > 0 ? total : nil
    }

    static func residentBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return (line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0) * 1024
        }
        return 0
    }

    private func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
}
