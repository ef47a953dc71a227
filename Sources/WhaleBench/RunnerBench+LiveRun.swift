import Foundation
import WhaleEmbedded
import WhaleRun
import WhaleSim
import WhaleTelemetry

extension RunnerBench {
    /// A fresh `whalesim serve` in a child process, its database `name` in `directory`.
    func serve(_ directory: URL, _ name: String) throws -> ChildServer {
        try ChildServer([
            "serve", "--port", "0", "--database", directory.appendingPathComponent("\(name).sqlite").path,
            "--bcrypt-cost", "4",
            "--max-messages-per-second", "0", "--max-connections", "20000", "--log-level", "error",
        ])
    }

    /// The live scenario of one measurement: `clients` pasting in `documents` notes, ramped up over `rampMs`.
    func scenario(
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
        live.timerGridMs = options.timerGridMs
        live.runnerLoop = options.runnerLoop
        s.live = live
        return s
    }

    /// The fixtures the live runs read (the Whaler seed, the small Salesforce org) as `whalesim run` finds
    /// them: `./Fixtures`, else `Fixtures/` beside the binary, else the built-in copies. A bench run started
    /// outside the project's directory used to stop at once on a missing `./Fixtures`.
    static func fixtures() throws -> URL {
        try BuiltinFixtures.directory(given: nil, holding: "whaler/seed.json").url
    }

    /// One live run against `server`, with the runner's CPU sampled throughout; the window is
    /// the steady one (from two seconds after the last client joined to the end of the load).
    func live(
        _ server: ChildServer, clients: Int, documents: Int, rampMs: Int, think: DelayDistribution,
        mix: [ActionMix.Action: Int], checkers: [CheckerName], protocolVersion: Int = 2, listen: Bool = false
    ) async throws -> (LiveRunResult, RunnerCPUSampler.Window?) {
        var s = scenario(
            clients: clients, documents: documents, rampMs: rampMs, think: think, mix: mix, checkers: checkers,
            durationMs: rampMs + options.seconds * 1000, protocolVersion: protocolVersion)
        s.live?.server = .url(server.baseURL)
        var runOptions = LiveRunOptions(
            scenario: s, scenarioRef: "bench", seed: 1, fixtures: try Self.fixtures(), reportsRoot: "")
        runOptions.progress = .none
        let run = LiveRun(options: runOptions) { _ in }
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
}
