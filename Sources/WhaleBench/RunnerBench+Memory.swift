import Foundation
import NIOConcurrencyHelpers
import WhaleEmbedded
import WhaleRun
import WhaleSim

extension RunnerBench {
    /// 2. Memory per client.
    func measureMemory(in directory: URL) async throws {
        let server = try serve(directory, "memory")
        defer { server.stop() }
        let (perClient, peak, held) = try await memory(server)
        output(
            String(
                format:
                    "memory: %d of %d clients held at once; runner RSS grew %.1f MB = %.1f KB per client (target ≤ 64)",
                held, options.memoryClients, Double(peak) / 1e6, perClient / 1024))
    }

    /// Runner RSS growth per connected client with `memoryClients` mostly idle clients held.
    private func memory(_ server: ChildServer) async throws -> (perClient: Double, growth: Int, held: Int) {
        let clients = options.memoryClients
        var s = scenario(
            clients: clients, documents: max(1, clients / options.noteSize), rampMs: 60_000,
            think: .uniform(min: 20_000, max: 40_000), mix: [.paste: 1], checkers: [.convergence], durationMs: 70_000)
        s.live?.server = .url(server.baseURL)
        var runOptions = LiveRunOptions(
            scenario: s, scenarioRef: "bench", seed: 1, fixtures: try Self.fixtures(), reportsRoot: "")
        runOptions.progress = .none
        let run = LiveRun(options: runOptions) { _ in }
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
            let rss = residentBytes() ?? 0
            if start == nil, connected > 0 { start = rss }
            if start != nil, connected >= held { held = connected; peak = max(peak, rss) }
        }
        _ = try await task.value
        let growth = peak - (start ?? peak)
        return (Double(growth) / Double(max(1, held)), growth, held)
    }
}
