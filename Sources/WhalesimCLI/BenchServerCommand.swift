import ArgumentParser
import Foundation
import WhaleBench
import WhaleLoad
import WhaleEmbedded
import WhaleRun
import WhaleServer

/// `whalesim bench server`: the reference server against a raw websocket server on the same
/// stack, each in its own process, measured in the same run so every figure is a ratio.
///
/// ```
/// swift run -c release whalesim bench server --clients 1000 --seconds 5 --runs 3
/// ```
struct BenchServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "server",
        abstract:
            "Ack rate, broadcast rate, memory per socket, durability cost and 10k sockets of `whalesim serve` vs a raw websocket server.",
        discussion: """
            Targets (issue 7): docChange→ack round trips with 1,000 clients ≥ 0.5× raw echo; delivered remote \
            ops in a 50-client note ≥ 0.5× raw broadcast; ≤ 48 KB server memory per idle socket; 10,000 \
            sockets held; acks/s with SQLite group commit vs :memory:.

            Examples:
              swift run -c release whalesim bench server
              swift run -c release whalesim bench server --clients 200 \\
                --idle-sockets 1000 --seconds 2 --runs 1 --skip-threads
            """)

    @Option(help: "Clients for the ack-rate phase (one note each).")
    var clients = 1_000
    @Option(name: .customLong("note-clients"), help: "Clients in the one note of the broadcast phase.")
    var noteClients = 50
    @Option(name: .customLong("idle-sockets"), help: "Idle sockets held for the memory and capacity phase.")
    var idleSockets = 10_000
    @Option(help: "Seconds per measured phase.")
    var seconds = 5.0
    @Option(help: "Runs of each rate phase (medians are reported).")
    var runs = 3
    @Option(help: "Seed file the server starts from.")
    var fixtures = "Fixtures/whaler/seed.json"
    @Option(help: "A seeded user the bench signs in as.")
    var email = "ann@acme.test"
    @Option(help: "Its password.")
    var password = "whale-ann-1"
    @Flag(name: .customLong("skip-threads"), help: "Skip the one-CPU vs two-CPU comparison.")
    var skipThreads = false
    @Flag(
        help:
            "Also measure acks/s with the SQLite database on a whalesim lazyfs mount (needs FUSE): the power-loss filesystem's overhead."
    )
    var lazyfs = false

    func run() async throws {
        guard clients >= 1, idleSockets >= 1, runs >= 1 else {
            throw BadInput("--clients, --idle-sockets and --runs must be at least 1").exit()
        }
        guard noteClients >= 2 else {
            throw BadInput("--note-clients must be at least 2 (a broadcast needs someone to hear it)").exit()
        }
        guard seconds > 0 else { throw BadInput("--seconds must be more than 0").exit() }
        guard FileManager.default.fileExists(atPath: fixtures) else {
            throw BadInput("--fixtures \(fixtures): no such file").exit()
        }
        if !isReleaseBuild {
            printError("warning: a debug build; quote only release figures (swift run -c release ...)")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "whalesim-bench-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let serveArguments = [
            "serve", "--port", "0", "--fixtures", fixtures, "--bcrypt-cost", "4", "--max-messages-per-second", "0",
            "--log-level", "warning", "--max-connections", "20000",
        ]

        print(
            "whalesim bench server: \(clients) clients, \(noteClients)-client note, \(idleSockets) idle sockets, \(seconds) s phases, \(runs) runs"
        )

        // 1. Echo round trips: raw vs reference (:memory: and SQLite).
        var rawEcho: [Double] = [], memoryAcks: [Double] = [], sqliteAcks: [Double] = [], lazyAcks: [Double] = []
        var lazyMount: LazyFSMount?
        if lazyfs {
            do {
                lazyMount = try LazyFSMount(
                    executable: ChildServer.selfExecutable, backing: directory.appendingPathComponent("lazy-backing"),
                    mount: directory.appendingPathComponent("lazy-mount"))
            } catch {
                printError("whalesim bench server: --lazyfs: \(error)")
                throw ExitStatus.inconclusive
            }
        }
        defer { lazyMount?.unmount() }
        for run in 1...max(runs, 1) {
            let raw = try ChildServer(["bench", "raw-server", "--mode", "echo"])
            rawEcho.append(try await SocketLoad.rawEcho(url: raw.socketURL, clients: clients, seconds: seconds))
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
            print(
                "  run \(run): raw echo \(Int(rawEcho.last!)) rt/s; acks :memory: \(Int(memoryAcks.last!))/s; acks SQLite \(Int(sqliteAcks.last!))/s"
                    + (lazyAcks.isEmpty ? "" : "; acks SQLite on lazyfs \(Int(lazyAcks.last!))/s"))
        }
        let echo = median(rawEcho), inMemory = median(memoryAcks), durable = median(sqliteAcks)
        print("docChange→ack, \(clients) clients (median of \(runs)):")
        print("  raw echo               \(Int(echo)) round trips/s")
        print("  serve, SQLite (FULL)   \(Int(durable)) acks/s = \(ratio(durable, echo))× raw echo (target ≥ 0.5)")
        print(
            "  serve, :memory:        \(Int(inMemory)) acks/s = \(ratio(inMemory, echo))× raw echo; durability costs \(percent(1 - durable / inMemory))"
        )
        if !lazyAcks.isEmpty {
            let onLazy = median(lazyAcks)
            print(
                "  serve, SQLite on lazyfs \(Int(onLazy)) acks/s = \(ratio(onLazy, durable))× SQLite on the plain disk; lazyfs costs \(percent(1 - onLazy / durable))"
            )
        }

        // 2. Broadcast in one note.
        var rawFanout: [Double] = [], serverFanout: [Double] = [], withCursors: [Double] = []
        for _ in 1...max(runs, 1) {
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
        print("delivered remote ops, one \(noteClients)-client note (median of \(runs)):")
        print("  raw broadcast          \(Int(median(rawFanout))) frames/s")
        print(
            "  serve                  \(Int(median(serverFanout))) ops/s = \(ratio(median(serverFanout), median(rawFanout)))× raw (target ≥ 0.5)"
        )
        print(
            "  serve, with cursors    \(Int(median(withCursors))) ops/s (each op's broadcast also carries its author's cursor)"
        )

        // 3. Idle sockets: memory per socket and capacity.
        let rawIdle = try ChildServer(["bench", "raw-server", "--mode", "echo"])
        let rawPerSocket = try await idleMemory(rawIdle, url: rawIdle.socketURL, headers: [("ObjectId", "idle")])
        await rawIdle.stopped()
        let server = try ChildServer(serveArguments + ["--database", ":memory:"])
        let (token, _, _) = try await signIn(server, accounts: 0)
        let organization = try await organizationId(server, token: token)
        let servePerSocket = try await idleMemory(
            server, url: server.socketURL + "?protocol=2",
            headers: [("ObjectId", organization), ("Authorization", token)])
        await server.stopped()
        print("idle sockets (\(idleSockets) held, each in the organization pool):")
        print("  raw                    \(kb(rawPerSocket.bytes)) KB per socket")
        print(
            "  serve                  \(kb(servePerSocket.bytes)) KB per socket (target ≤ 48); held \(servePerSocket.held) of \(idleSockets)"
        )

        // 4. One CPU against two (the server process pinned with taskset).
        if !skipThreads {
            let one = try await acks(serveArguments + ["--database", ":memory:"], cpus: "0")
            let two = try await acks(serveArguments + ["--database", ":memory:"], cpus: "0,1")
            print(
                "server on one CPU vs two (:memory:, \(clients) clients): \(Int(one)) vs \(Int(two)) acks/s = \(ratio(two, one))×"
            )
        }
    }

    private func acks(_ arguments: [String], cpus: String? = nil) async throws -> Double {
        let server = try ChildServer(arguments, cpus: cpus)
        defer { server.stop() }
        let (token, _, accounts) = try await signIn(server, accounts: clients)
        return try await SocketLoad.serverAcks(
            url: server.socketURL, token: token, accounts: accounts, seconds: seconds)
    }

    /// Signs in and makes `accounts` fresh accounts (tracked by the user) to put notes on.
    private func signIn(_ server: ChildServer, accounts count: Int) async throws -> (
        token: String, userId: String, accounts: [String]
    ) {
        try await BenchAccounts.signIn(server, accounts: count, email: email, password: password)
    }

    private func organizationId(_ server: ChildServer, token: String) async throws -> String {
        let answer = try await postJSON(server.baseURL + "/query", ["query": "{ organization { id } }"], token: token)
        guard let id = ((answer["data"] as? [String: Any])?["organization"] as? [String: Any])?["id"] as? String else {
            throw BadInput("bench: no organization: \(answer)")
        }
        return id
    }

    /// Server memory per idle socket: its RSS with `idleSockets` open minus before, divided.
    private func idleMemory(_ server: ChildServer, url: String, headers: [(String, String)]) async throws -> (
        bytes: Double, held: Int
    ) {
        try await Task.sleep(for: .milliseconds(300))
        let before = server.residentBytes ?? 0
        let sockets = try await SocketLoad.openAll(idleSockets) { _ in LiveSocket(url: url, headers: headers) { _ in } }
        try await Task.sleep(for: .seconds(1))
        let after = server.residentBytes ?? 0
        let held = sockets.filter { $0.ending == nil }.count
        await SocketLoad.closeAll(sockets)
        return (Double(after - before) / Double(max(idleSockets, 1)), held)
    }

    private func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
    private func ratio(_ a: Double, _ b: Double) -> String { String(format: "%.2f", b > 0 ? a / b : 0) }
    private func percent(_ x: Double) -> String { String(format: "%.0f%%", x * 100) }
    private func kb(_ bytes: Double) -> String { String(format: "%.1f", bytes / 1024) }
}

/// `whalesim bench raw-server`: the raw websocket yardstick on its own (the bench starts it).
struct BenchRawServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "raw-server",
        abstract: "A websocket server that only echoes or broadcasts (the bench's baseline).",
        shouldDisplay: false)

    @Option(help: "echo or broadcast.")
    var mode = "echo"
    @Option(help: "Port (0 picks one).")
    var port = 0

    func run() async throws {
        guard let mode = RawBaselineServer.Mode(rawValue: mode) else {
            throw BadInput("--mode is echo or broadcast").exit()
        }
        let server = try await RawBaselineServer.start(mode: mode, port: port)
        FileHandle.standardOutput.write(Data("http: http://127.0.0.1:\(server.port)\n".utf8))
        await server.waitUntilStopped()
    }
}
