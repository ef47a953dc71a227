import Foundation

extension RunnerBench {
    /// 1b. The bare client: the same frames on the same schedule through the same server, with
    /// no OT, no record and no metrics. Its frames per CPU-second are the yardstick.
    /// `fullWindows`: the full virtual client's (protocol 2's latency runs).
    func measureBare(against fullWindows: [RunnerCPUSampler.Window], in directory: URL) async throws {
        let clients = options.latencyClients
        var windows: [RunnerCPUSampler.Window] = []
        for run in 1...options.runs {
            let server = try serve(directory, "bare-\(run)")
            defer { server.stop() }
            let (token, _, accounts) = try await BenchAccounts.signIn(server, accounts: clients / options.noteSize)
            let r = try await BareNoteLoad.run(
                url: server.socketURL, token: token, accounts: accounts, clients: clients,
                noteSize: options.noteSize, thinkMs: Int(1000 / options.opsPerSecond), seconds: options.seconds)
            windows.append(r.window)
            output(
                "  bare LeanSocket clients, run \(run): \(r.joined) of \(clients) joined; "
                    + Self.describe(r.window, runner: "bare client"))
        }
        let full = median(fullWindows.map(\.framesPerCPUSecond)),
            yardstick = median(windows.map(\.framesPerCPUSecond))
        output(
            String(
                format:
                    "bare LeanSocket client (median of %d): %.3f CPU s per 1,000 ops, %.0f frames per CPU-second, %.2f cores at %.0f ops/s",
                windows.count, median(windows.map(\.cpuSecondsPer1000Ops)), yardstick, median(windows.map(\.cores)),
                median(windows.map(\.opsPerSecond))))
        output(
            String(
                format:
                    "generator: the full virtual client handles %.2f× the frames per CPU-second of the bare client (target ≥ 0.5)",
                full / yardstick))
    }
}
