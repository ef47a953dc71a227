import WhaleEmbedded

extension ServerBench {
    /// 2. Broadcast in one note: raw broadcast against the reference server's delivered remote ops,
    /// without and with cursors.
    func measureBroadcast() async throws {
        let noteClients = options.noteClients, seconds = options.seconds
        var rawFanout: [Double] = [], serverFanout: [Double] = [], withCursors: [Double] = []
        for _ in 1...max(options.runs, 1) {
            let raw = try ChildServer(["bench", "raw-server", "--mode", "broadcast"])
            rawFanout.append(
                try await SocketLoad.rawBroadcast(url: raw.socketURL, clients: noteClients, seconds: seconds))
            await raw.stopped()
            for cursors in [false, true] {
                let server = try ChildServer(serveArguments + ["--database", ":memory:"])
                let (token, userId, accounts) = try await signIn(server, accounts: 1)
                let rate = try await SocketLoad.serverBroadcast(
                    url: server.socketURL, token: token, userId: userId,
                    account: accounts[0], clients: noteClients, seconds: seconds, cursors: cursors)
                if cursors { withCursors.append(rate) } else { serverFanout.append(rate) }
                await server.stopped()
            }
        }
        output("delivered remote ops, one \(noteClients)-client note (median of \(options.runs)):")
        output("  raw broadcast          \(Int(median(rawFanout))) frames/s")
        output(
            "  serve                  \(Int(median(serverFanout))) ops/s = \(ratio(median(serverFanout), median(rawFanout)))× raw (target ≥ 0.5)"
        )
        output(
            "  serve, with cursors    \(Int(median(withCursors))) ops/s (each op's broadcast also carries its author's cursor)"
        )
    }
}
