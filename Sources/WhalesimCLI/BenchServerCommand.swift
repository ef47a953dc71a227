import ArgumentParser
import Foundation
import WhaleBench
import WhaleEmbedded
import WhaleRun

/// `whalesim bench server`: the reference server against a raw websocket server on the same
/// stack, each in its own process, measured in the same run so every figure is a ratio. The
/// phases are WhaleBench's ``ServerBench``: this command checks its options and prints the lines
/// the phases hand it.
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
        let options = ServerBench.Options(
            clients: clients, noteClients: noteClients, idleSockets: idleSockets, seconds: seconds, runs: runs,
            fixtures: fixtures, email: email, password: password, skipThreads: skipThreads, lazyfs: lazyfs)
        do {
            try await ServerBench(options, output: { print($0) }).run()
        } catch let error as BenchError where error.description.hasPrefix(ServerBench.lazyfsUnavailable) {
            printError("whalesim bench server: \(error.description)")
            throw ExitStatus.inconclusive
        }
    }
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
