import Foundation
import WhaleEmbedded
import WhaleRun
import WhaleSim

extension RunnerBench {
    /// 3. Ceiling: the largest offered rate the runner keeps up with, judged by its own
    /// scheduling lag (runner_lag p99 over the steady window within --lag-bound), not by the
    /// server's latency, which says as much about the server as about the runner.
    func measureCeiling(in directory: URL) async throws {
        let clients = options.ceilingClients, lagBound = options.lagBound
        let raw = try ChildServer(["bench", "raw-server", "--mode", "echo"])
        let echo = try await SocketLoad.rawEcho(
            url: raw.socketURL, clients: clients, seconds: Double(options.seconds) / 2)
        raw.stop()
        var ceiling = 0.0
        for think in [400, 200, 100, 50, 25, 12, 6, 3] {
            let server = try serve(directory, "ceiling\(think)")
            defer { server.stop() }
            let (r, window) = try await live(
                server, clients: clients, documents: max(1, clients / options.noteSize), rampMs: 2_000,
                think: .uniform(min: think * 9 / 10, max: think * 11 / 10), mix: [.paste: 1],
                checkers: [.convergence])
            let offered = Double(clients) * 1000 / Double(think)
            let lag = Self.steady(r, "runner_lag", clients: clients)?.percentileMs(99) ?? .infinity
            let achieved = window?.opsPerSecond ?? 0
            // A user's cycle is its think time plus the action itself, so even an idle runner acks about
            // 90% of clients / think: falling behind is well under that, not a hair under it.
            let ok = lag <= Double(lagBound) && achieved >= 0.8 * offered
            output(
                String(
                    format: "  offered %5.0f ops/s: %5.0f acks/s, runner_lag p99 %.1f ms, op→ack p50 %.2f ms%@%@",
                    offered, achieved, lag,
                    Self.steady(r, "op_ack", clients: clients)?.percentileMs(50) ?? .nan,
                    window.map { "; " + Self.describe($0, runner: "runner") } ?? "",
                    ok ? "" : (lag > Double(lagBound) ? " (lag past the bound)" : " (fell behind the offered rate)")
                ))
            if ok { ceiling = max(ceiling, achieved) } else { break }
        }
        output(
            String(
                format:
                    "ceiling: %.0f ops/s offered with runner_lag p99 ≤ %d ms = %.2f× the raw echo rate (%.0f round trips/s, %d clients)",
                ceiling, lagBound, echo > 0 ? ceiling / echo : 0, echo, clients))
    }
}
