import Foundation
import WhaleEmbedded

extension ServerBench {
    /// 1. Echo round trips: raw vs reference (:memory: and SQLite, and SQLite on `lazyMount` if
    /// given), each run's line, then the medians and what durability costs.
    func measureEcho(in directory: URL, lazyMount: LazyFSMount?) async throws {
        let clients = options.clients, runs = options.runs
        var rawEcho: [Double] = [], memoryAcks: [Double] = [], sqliteAcks: [Double] = [], lazyAcks: [Double] = []
        for run in 1...max(runs, 1) {
            let raw = try ChildServer(["bench", "raw-server", "--mode", "echo"])
            rawEcho.append(try await SocketLoad.rawEcho(url: raw.socketURL, clients: clients, seconds: options.seconds))
            await raw.stopped()
            memoryAcks.append(try await acks(serveArguments + ["--database", ":memory:"]))
            sqliteAcks.append(
                try await acks(
                    serveArguments + ["--database", directory.appendingPathComponent("run\(run).sqlite").path]))
            if let lazyMount {
                lazyAcks.append(
                    try await acks(
                        serveArguments + [
                            "--database", lazyMount.mount.appendingPathComponent("run\(run).sqlite").path,
                        ]))
            }
            output(
                "  run \(run): raw echo \(Int(rawEcho.last!)) rt/s; acks :memory: \(Int(memoryAcks.last!))/s; acks SQLite \(Int(sqliteAcks.last!))/s"
                    + (lazyAcks.isEmpty ? "" : "; acks SQLite on lazyfs \(Int(lazyAcks.last!))/s"))
        }
        let echo = median(rawEcho), inMemory = median(memoryAcks), durable = median(sqliteAcks)
        output("docChange→ack, \(clients) clients (median of \(runs)):")
        output("  raw echo               \(Int(echo)) round trips/s")
        output("  serve, SQLite (FULL)   \(Int(durable)) acks/s = \(ratio(durable, echo))× raw echo (target ≥ 0.5)")
        output(
            "  serve, :memory:        \(Int(inMemory)) acks/s = \(ratio(inMemory, echo))× raw echo; durability costs \(percent(1 - durable / inMemory))"
        )
        if !lazyAcks.isEmpty {
            let onLazy = median(lazyAcks)
            output(
                "  serve, SQLite on lazyfs \(Int(onLazy)) acks/s = \(ratio(onLazy, durable))× SQLite on the plain disk; lazyfs costs \(percent(1 - onLazy / durable))"
            )
        }
    }
}
