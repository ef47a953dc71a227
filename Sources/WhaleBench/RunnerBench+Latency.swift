import Foundation
import WhaleRun
import WhaleSim

extension RunnerBench {
    /// What the runs of one protocol read, run by run; their medians are printed.
    struct LatencyReadings {
        var ackP99: [Double] = [], remoteP99: [Double] = [], steadyAck: [Double] = [], steadyRemote: [Double] = []
        var windows: [RunnerCPUSampler.Window] = [], listened: [RunnerCPUSampler.Window] = []
    }

    /// 1. Latency, for each protocol asked for: the original (the Whaler app's traffic: one
    /// frame per op each way) and protocol 2 (cursor sharing: each op's broadcast carries its
    /// author's cursor, op ids ride along, and every join exchanges cursorUpdates).
    /// Two readings per run: the whole run, ramp-up included, and the steady window from two
    /// seconds after the last client joined to the end of the load ("1,000 clients typing").
    /// Returns protocol 2's windows, the full virtual client's cost the yardsticks stand beside.
    func measureLatency(in directory: URL) async throws -> [RunnerCPUSampler.Window] {
        var fullWindows: [RunnerCPUSampler.Window] = []
        for version in options.protocols where options.latencyClients > 0 {
            var readings = LatencyReadings()
            let label = version == 1 ? "original protocol" : "protocol 2 with cursor sharing"
            for run in 1...options.runs {
                try await latencyRun(run, protocolVersion: version, label: label, in: directory, into: &readings)
            }
            printLatency(readings, label: label)
            if version == 2 { fullWindows = readings.windows }
        }
        return fullWindows
    }

    /// One run of the latency phase, and with `--listen-scraped` its twin served live.
    private func latencyRun(
        _ run: Int, protocolVersion version: Int, label: String, in directory: URL,
        into readings: inout LatencyReadings
    ) async throws {
        let clients = options.latencyClients
        let server = try serve(directory, "latency\(version)-\(run)")
        defer { server.stop() }
        let think = Int(1000 / options.opsPerSecond)
        let (r, window) = try await live(
            server, clients: clients, documents: clients / options.noteSize, rampMs: 10_000,
            think: .uniform(min: think * 9 / 10, max: think * 11 / 10), mix: [.paste: 1],
            checkers: [.convergence, .intention, .revisions],
            protocolVersion: version)
        let ack = r.histograms["op_ack"]?.percentileMs(99) ?? .nan,
            remote = r.histograms["op_remote_apply"]?.percentileMs(99) ?? .nan
        let sAck = Self.steady(r, "op_ack", clients: clients),
            sRemote = Self.steady(r, "op_remote_apply", clients: clients)
        let rate = Double(sAck?.count ?? 0) / Double(max(1, Self.steadySeconds(r, clients: clients)))
        readings.ackP99.append(ack); readings.remoteP99.append(remote)
        readings.steadyAck.append(sAck?.percentileMs(99) ?? .nan)
        readings.steadyRemote.append(sRemote?.percentileMs(99) ?? .nan)
        if let window { readings.windows.append(window) }
        output(
            String(
                format:
                    "  %@, run %d: whole run op→ack p99 %.2f ms, op→remote-apply p99 %.2f ms; steady (%d s, %.0f acks/s) op→ack p50 %.2f p99 %.2f ms, op→remote-apply p50 %.2f p99 %.2f ms; verdict %@",
                label, run, ack, remote, Self.steadySeconds(r, clients: clients), rate,
                sAck?.percentileMs(50) ?? .nan, sAck?.percentileMs(99) ?? .nan,
                sRemote?.percentileMs(50) ?? .nan, sRemote?.percentileMs(99) ?? .nan, r.verdict.rawValue))
        if let window { output("    " + Self.describe(window, runner: "runner")) }
        for c in r.results where c.verdict != .valid {
            for line in c.evidence.prefix(3) { output("      \(c.checker.rawValue): \(line)") }
        }
        if options.listenScraped {
            // The same run with the live view on and scraped every second, right after, on a fresh server.
            let server = try serve(directory, "latency\(version)-\(run)-listen")
            defer { server.stop() }
            let (_, served) = try await live(
                server, clients: clients, documents: clients / options.noteSize, rampMs: 10_000,
                think: .uniform(min: think * 9 / 10, max: think * 11 / 10), mix: [.paste: 1],
                checkers: [.convergence, .intention, .revisions], protocolVersion: version, listen: true)
            if let served {
                readings.listened.append(served)
                output("    " + Self.describe(served, runner: "runner with --listen, scraped every second"))
            }
        }
    }

    /// The medians of one protocol's runs: the live view's cost (with `--listen-scraped`), latency, the runner's cost.
    private func printLatency(_ readings: LatencyReadings, label: String) {
        let windows = readings.windows, listened = readings.listened
        if !listened.isEmpty, !windows.isEmpty {
            let plain = median(windows.map(\.cpuSecondsPer1000Ops)),
                served = median(listened.map(\.cpuSecondsPer1000Ops))
            output(
                String(
                    format:
                        "live view cost, %@ (medians of %d): %.3f CPU s per 1,000 ops without, %.3f with --listen and a scrape a second: %.3f× (budget ≤ 1.05×)",
                    label, min(windows.count, listened.count), plain, served, served / plain))
        }
        output(
            String(
                format:
                    "latency, %@, %d clients, notes of %d, %.1f ops/s each (median of %d): steady op→ack p99 %.2f ms (target ≤ 20), op→remote-apply p99 %.2f ms (target ≤ 40); whole run with ramp-up %.2f and %.2f ms",
                label, options.latencyClients, options.noteSize, options.opsPerSecond, options.runs,
                median(readings.steadyAck), median(readings.steadyRemote),
                median(readings.ackP99), median(readings.remoteP99)))
        if !windows.isEmpty {
            output(
                String(
                    format:
                        "runner cost, %@ (median of %d): %.3f CPU s per 1,000 ops, %.0f frames per CPU-second, %.2f cores at %.0f ops/s (target ≤ 0.4 at 2,000 ops/s)",
                    label, windows.count, median(windows.map(\.cpuSecondsPer1000Ops)),
                    median(windows.map(\.framesPerCPUSecond)),
                    median(windows.map(\.cores)), median(windows.map(\.opsPerSecond))))
        }
    }
}
