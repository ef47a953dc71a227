import Foundation
import NIOCore
import WhaleEmbedded
import WhaleSim

/// `whalesim bench run`'s measurement: the load runner's own scale, against `whalesim serve` in a
/// second process. Its phases, each in its own file: memory per connection (`+SocketMemory`); op
/// latency with 1,000 clients typing 2 ops/s in notes of 10, per protocol (`+Latency`); the bare
/// LeanSocket yardstick (`+Bare`) and the epoll floor (`+Floor`) beside it; runner memory per client
/// with 10,000 clients connected (`+Memory`); and the runner's ceiling, the largest op rate it
/// sustains before its scheduling lag passes the bound, as a ratio of the raw websocket echo rate
/// measured in the same run (`+Ceiling`). A live run and its steady window: `+LiveRun`, `+Steady`.
/// Each line it prints goes to `output`, in order.
package struct RunnerBench: Sendable {
    /// What to measure: the command's options, checked by the command.
    package struct Options: Sendable {
        /// Clients of the latency phase (0 skips it and the yardsticks).
        package var latencyClients: Int
        /// Clients per note in the latency phase.
        package var noteSize: Int
        /// Ops each client types per second in the latency phase.
        package var opsPerSecond: Double
        /// Clients held for the memory phase (0 skips it).
        package var memoryClients: Int
        /// Clients of the ceiling phase (0 skips it).
        package var ceilingClients: Int
        /// Seconds of steady load per measurement.
        package var seconds: Int
        /// Runs of the latency phase and the yardsticks (medians are reported).
        package var runs: Int
        /// Sockets of each client kind opened to compare memory per connection (0 skips it).
        package var socketMemory: Int
        /// The runner_lag p99 (ms) under which the ceiling phase says the runner keeps up.
        package var lagBound: Int
        /// Measure bare LeanSocket clients beside the virtual clients.
        package var bare: Bool
        /// Measure the floor too: the bare clients' frames on plain epoll and system calls (Linux).
        package var floor: Bool
        /// Run each latency run a second time, served live and scraped every second.
        package var listenScraped: Bool
        /// Protocols of the latency phase (1, 2), in the order given.
        package var protocols: [Int]
        /// The virtual users' timer grid in ms (live.timer-grid).
        package var timerGridMs: Int
        /// What carries the virtual users' note sockets and pauses (live.runner-loop).
        package var runnerLoop: RunnerLoop

        package init(
            latencyClients: Int, noteSize: Int, opsPerSecond: Double, memoryClients: Int, ceilingClients: Int,
            seconds: Int, runs: Int, socketMemory: Int, lagBound: Int, bare: Bool, floor: Bool, listenScraped: Bool,
            protocols: [Int], timerGridMs: Int, runnerLoop: RunnerLoop
        ) {
            self.latencyClients = latencyClients
            self.noteSize = noteSize
            self.opsPerSecond = opsPerSecond
            self.memoryClients = memoryClients
            self.ceilingClients = ceilingClients
            self.seconds = seconds
            self.runs = runs
            self.socketMemory = socketMemory
            self.lagBound = lagBound
            self.bare = bare
            self.floor = floor
            self.listenScraped = listenScraped
            self.protocols = protocols
            self.timerGridMs = timerGridMs
            self.runnerLoop = runnerLoop
        }
    }

    /// Why `--floor` cannot measure off Linux: the floor client is epoll's. Raised as a
    /// ``BenchError`` once the phases before the floor have run; the command reports it as bad input.
    package static let floorNeedsLinux = "--floor: the floor client is written for Linux (epoll)"

    package let options: Options
    /// Where each printed line goes (the command passes `print`).
    package let output: @Sendable (String) -> Void

    package init(_ options: Options, output: @escaping @Sendable (String) -> Void) {
        self.options = options
        self.output = output
    }

    /// Every phase asked for, in order, each server's database in a temporary directory removed at the end.
    package func run() async throws {
        defer { BuiltinFixtures.cleanUp() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "whalesim-bench-run-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let o = options
        output(
            "whalesim bench run: \(o.latencyClients) clients at \(o.opsPerSecond) ops/s in notes of \(o.noteSize), \(o.memoryClients) held, ceiling with \(o.ceilingClients); \(o.seconds) s, \(o.runs) runs; runner threads \(NIOSingletons.groupLoopCountSuggestion), timer grid \(o.timerGridMs) ms, runner loop \(o.runnerLoop.rawValue)"
        )
        if o.socketMemory > 0 { try await measureSocketMemory() }
        let fullWindows = try await measureLatency(in: directory)
        if o.latencyClients > 0, !fullWindows.isEmpty, o.bare {
            try await measureBare(against: fullWindows, in: directory)
        }
        if o.latencyClients > 0, !fullWindows.isEmpty, o.floor {
            try await measureFloor(against: fullWindows, in: directory)
        }
        if o.memoryClients > 0 { try await measureMemory(in: directory) }
        if o.ceilingClients > 0 { try await measureCeiling(in: directory) }
    }
}
