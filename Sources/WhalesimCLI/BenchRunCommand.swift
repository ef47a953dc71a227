import ArgumentParser
import WhaleBench
import WhaleRun
import WhaleSim

/// `whalesim bench run`: the load runner's own scale, against `whalesim serve` in a second
/// process. The phases (latency, memory per client, the ceiling and the yardsticks beside them)
/// are WhaleBench's ``RunnerBench``, which says what each measures: this command checks its
/// options and prints the lines the phases hand it.
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
        let options = RunnerBench.Options(
            latencyClients: latencyClients, noteSize: noteSize, opsPerSecond: opsPerSecond,
            memoryClients: memoryClients, ceilingClients: ceilingClients, seconds: seconds, runs: runs,
            socketMemory: socketMemory, lagBound: lagBound, bare: bare, floor: floor, listenScraped: listenScraped,
            protocols: protocols, timerGridMs: timerGrid, runnerLoop: RunnerLoop(rawValue: runnerLoop) ?? .nio)
        do {
            try await RunnerBench(options, output: { print($0) }).run()
        } catch let error as BenchError where error.description == RunnerBench.floorNeedsLinux {
            throw BadInput(error.description).exit()
        }
    }
}
