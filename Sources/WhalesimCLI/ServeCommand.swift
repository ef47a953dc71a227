import ArgumentParser
import Foundation
import Logging
import WhaleProtocol
import WhaleEmbedded
import WhaleServer

/// `whalesim serve`: the live reference server (REST login, GraphQL, websocket, SQLite) until
/// SIGTERM or SIGINT, which close every socket with 1001 and flush storage first.
///
/// ```
/// whalesim serve --port 8080 --database /tmp/whalesim.sqlite
/// curl -s localhost:8080/health
/// ```
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the Whaler protocol (REST, GraphQL, websocket) with SQLite persistence.",
        discussion: """
            Wire-compatible with the original Whaler backend; clients that connect with ?protocol=2 \
            (or the Whalesim-Protocol: 2 header) get whalesim's extensions (PROTOCOL.md §3). \
            Prints the URL, then serves until SIGTERM or SIGINT: the first closes every socket (1001), \
            commits what is pending and exits 0; a second exits at once with 128 + the signal (130 SIGINT, \
            143 SIGTERM). Port 0 picks a free port. The signing key: $WHALESIM_JWT_SECRET or --jwt-secret-file \
            (a file only its owner can read); --jwt-secret puts it on the command line, where `ps` shows it \
            to every local user.

            Examples:
              whalesim serve --port 8080 --database :memory:
              whalesim serve --port 0 --database notes.sqlite --log-format json
            """)

    @Option(name: .long, help: "Address to bind.")
    var host = "127.0.0.1"

    @Option(name: .long, help: "Port (0 picks a free one).")
    var port = 8080

    @Option(name: .long, help: "SQLite file (created and migrated if needed), or :memory: for a throwaway run.")
    var database = "whalesim.sqlite"

    @Option(
        name: .long,
        help:
            "Seed file with organizations, users (plain passwords, hashed on first start), accounts, contacts, tasks and tracking (default: ./Fixtures/whaler/seed.json, else Fixtures/ beside the binary, else the built-in seed)."
    )
    var fixtures: String?

    @Option(name: .customLong("max-message-bytes"), help: "Largest websocket message accepted (bigger: tooLarge).")
    var maxMessageBytes = 64 * 1024

    @Option(
        name: .customLong("max-messages-per-second"),
        help: "Per-connection message rate (bursts of twice that); 0 = no limit.")
    var maxMessagesPerSecond = 500

    @Option(name: .customLong("max-connections"), help: "Open sockets at most; more upgrades get HTTP 503.")
    var maxConnections = 15_000

    @Option(
        name: .customLong("slow-client-queue"),
        help: ArgumentHelp(
            "Outgoing frames waiting on a connection past which it counts as slow (what server-drops-slow-client acts on); 0 marks a connection slow as soon as any frame waits for it, to show that fault in a short run.",
            valueName: "FRAMES"))
    var slowClientQueue = ServerConfiguration().slowClientQueue

    @Option(
        name: .customLong("backpressure-log"),
        help: ArgumentHelp(
            "Append one JSON line to FILE each time a connection is marked slow or drained ({\"ms\":UNIX_MS,\"client\":ID,\"slow\":BOOL}); whalesim run puts them in its history.",
            valueName: "FILE"))
    var backpressureLog: String?

    @Flag(
        name: .long,
        help: "Original protocol only, byte for byte (ignores ?protocol=2; silent on bad input; 512-byte messages).")
    var compatibility = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            // Built from the catalog, so a new server-side fault is listed without an edit here.
            "Serve with a server-side catalog fault switched on (repeatable): "
                + Fault.allCases.filter { !$0.isClientSide }.map(\.rawValue).joined(separator: ", ") + "."))
    var fault: [String] = []

    @Option(
        name: .customLong("jwt-secret"),
        help:
            "HS256 key for access tokens (default: $WHALESIM_JWT_SECRET, else random per start); visible to `ps`, prefer the variable or --jwt-secret-file."
    )
    var jwtSecret: String?

    @Option(
        name: .customLong("jwt-secret-file"),
        help: ArgumentHelp(
            "Read the HS256 key from this file (one line; must not be readable by group or others).", valueName: "PATH")
    )
    var jwtSecretFile: String?

    @Flag(
        name: .customLong("stop-on-stdin-eof"),
        help:
            "Stop as on SIGTERM when standard input ends: a parent holding the other end of a pipe has exited, so the server never outlives it (whalesim run starts its embedded server so)."
    )
    var stopOnStdinEOF = false

    @Option(name: .customLong("bcrypt-cost"), help: "bcrypt cost for seeded passwords (4...31).")
    var bcryptCost: UInt8 = 10

    @Option(name: .long, help: "Document shards, each with its own lock (default: one per core).")
    var shards: Int?

    @Option(
        name: .customLong("delay-acks"),
        help: ArgumentHelp(
            "Test hook: hold every applied op's ack (and its broadcast) this many milliseconds before sending it, to plant a known latency regression (report --compare must catch it). 0 = off.",
            valueName: "MS"))
    var delayAcks: Double = 0

    @Option(
        name: .customLong("plant"),
        help: ArgumentHelp(
            "Test hook: plant a server bug that loses, skips or misorders ops (\(PlantedBug.allCases.map(\.rawValue).joined(separator: ", "))), to show the live checkers catch it.",
            valueName: "BUG"))
    var plant: String?
    @Option(
        name: .customLong("sqlite-synchronous"),
        help: ArgumentHelp(
            "SQLite's synchronous level: full (a commit is durable when it returns), normal or off (commits reach the OS, not the disk: a power loss loses acknowledged ops; a power-loss window must catch it).",
            valueName: "LEVEL"))
    var sqliteSynchronous = "full"

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel = "info"

    @Option(
        name: .customLong("log-format"), help: "text (key=value metadata) or json (one object per line), on stderr.")
    var logFormat = "text"

    func run() async throws {
        defer { BuiltinFixtures.cleanUp() }
        var configuration = ServerConfiguration()
        configuration.host = host
        guard (0...65535).contains(port) else { throw BadInput("--port must be between 0 and 65535").exit() }
        configuration.port = port
        configuration.database = database
        let seed: URL
        if let fixtures {
            seed = URL(fileURLWithPath: fixtures)
            guard FileManager.default.fileExists(atPath: seed.path) else {
                throw BadInput("--fixtures \(fixtures): no such file").exit()
            }
        } else {
            do {
                seed = try BuiltinFixtures.directory(given: nil, holding: "whaler/seed.json").url
                    .appendingPathComponent("whaler/seed.json")
            } catch {
                throw BadInput("cannot write the built-in seed to a temporary directory: \(error)").exit()
            }
        }
        configuration.fixtures = seed
        guard maxMessageBytes >= 64 else { throw BadInput("--max-message-bytes must be at least 64").exit() }
        configuration.maxMessageBytes = maxMessageBytes
        guard maxMessagesPerSecond >= 0 else { throw BadInput("--max-messages-per-second must be ≥ 0").exit() }
        configuration.maxMessagesPerSecond = maxMessagesPerSecond
        guard maxConnections >= 1 else { throw BadInput("--max-connections must be ≥ 1").exit() }
        configuration.maxConnections = maxConnections
        guard (0...1_000_000).contains(slowClientQueue) else {
            throw BadInput("--slow-client-queue \(slowClientQueue): expected a number of frames from 0 to 1000000")
                .exit()
        }
        configuration.slowClientQueue = slowClientQueue
        if let backpressureLog {
            // Appended to, never truncated: a server restarted by a run keeps the lines before its crash.
            let fm = FileManager.default
            guard
                fm.fileExists(atPath: backpressureLog)
                    ? fm.isWritableFile(atPath: backpressureLog) : fm.createFile(atPath: backpressureLog, contents: nil)
            else {
                throw BadInput("--backpressure-log \(backpressureLog): cannot write the file").exit()
            }
            configuration.backpressureLog = backpressureLog
        }
        configuration.compatibility = compatibility
        var faults = FaultSet()
        for name in fault {
            let serverSide = Fault.allCases.filter { !$0.isClientSide }
            guard let known = Fault(rawValue: name) else {
                throw BadInput(
                    "unknown fault \(name); the server's: \(serverSide.map(\.rawValue).joined(separator: ", "))"
                ).exit()
            }
            guard !known.isClientSide else {
                throw BadInput(
                    "\(name) is a client-side fault (the virtual clients reproduce it); the server's: \(serverSide.map(\.rawValue).joined(separator: ", "))"
                ).exit()
            }
            faults.insert(known)
        }
        configuration.faults = faults
        if let secret = try jwtSecret ?? readSecretFile() ?? ProcessInfo.processInfo.environment["WHALESIM_JWT_SECRET"]
        {
            guard secret.utf8.count >= 16 else { throw BadInput("the JWT secret must be at least 16 bytes").exit() }
            configuration.jwtSecret = Data(secret.utf8)
        }
        guard (4...31).contains(bcryptCost) else { throw BadInput("--bcrypt-cost must be between 4 and 31").exit() }
        configuration.bcryptCost = bcryptCost
        if let shards {
            guard (1...256).contains(shards) else { throw BadInput("--shards must be between 1 and 256").exit() }
            configuration.shards = shards
        }
        guard delayAcks.isFinite, (0...60_000).contains(delayAcks) else {
            throw BadInput("--delay-acks must be between 0 and 60000 ms").exit()
        }
        configuration.ackDelay = .microseconds(Int64((delayAcks * 1000).rounded()))
        if let plant {
            guard let bug = PlantedBug(rawValue: plant) else {
                throw BadInput(
                    "unknown --plant \(plant); one of: \(PlantedBug.allCases.map(\.rawValue).joined(separator: ", "))"
                ).exit()
            }
            configuration.plantedBug = bug
        }
        guard let synchronous = SQLiteSynchronous(rawValue: sqliteSynchronous) else {
            throw BadInput("--sqlite-synchronous is full, normal or off, not \(sqliteSynchronous)").exit()
        }
        configuration.sqliteSynchronous = synchronous
        guard let level = Logger.Level(rawValue: logLevel) else {
            throw BadInput("unknown --log-level \(logLevel)").exit()
        }
        configuration.logLevel = level
        switch logFormat {
        case "text":
            LoggingSystem.bootstrap { label in
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = level
                return handler
            }
        case "json":
            LoggingSystem.bootstrap { JSONLogHandler(label: $0, level: level) }
        default:
            throw BadInput("--log-format is text or json").exit()
        }

        let server: ReferenceServer
        do {
            server = try await ReferenceServer.start(configuration)
        } catch {
            throw BadInput("\(error)").exit()
        }
        // The first signal stops the server gracefully; this command returns once that stop has
        // flushed storage (waitUntilStopped alone may return while the stop is still committing).
        let stopping = Stopping()
        Interrupts.install(announce: level < .error) { _ in stopping.begin { await server.stop() } }
        if stopOnStdinEOF { Self.stopWhenInputEnds() }
        // Unbuffered, so a parent process reading the pipe sees the URL at once.
        FileHandle.standardOutput.write(Data("http: \(server.baseURL)\nsocket: \(server.socketURL)\n".utf8))
        await server.waitUntilStopped()
        await stopping.finished()
        printError("whalesim: stopped (\(server.commits) commits)")
    }

    /// The key from --jwt-secret-file: refused when group or others may read the file.
    private func readSecretFile() throws -> String? {
        guard let path = jwtSecretFile else { return nil }
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue
        else {
            throw BadInput("--jwt-secret-file \(path): no such file").exit()
        }
        guard mode & 0o077 == 0 else {
            throw BadInput(
                "--jwt-secret-file \(path): readable by others (mode \(String(mode, radix: 8))); chmod 600 it"
            ).exit()
        }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw BadInput("--jwt-secret-file \(path): not readable as UTF-8").exit()
        }
        return text.trimmingCharacters(in: .newlines)
    }

    /// Reads standard input to its end on a thread of its own, then sends this process SIGTERM
    /// (the clean stop). A parent's pipe ends when the parent exits, even by SIGKILL, which
    /// PR_SET_PDEATHSIG could not promise here: it fires when the parent's spawning *thread* ends.
    static func stopWhenInputEnds() {
        let thread = Thread {
            while true {
                let chunk = FileHandle.standardInput.availableData
                if chunk.isEmpty { break }
            }
            printError("whalesim: standard input closed (the parent is gone): stopping")
            kill(getpid(), SIGTERM)
        }
        thread.start()
    }
}

/// The graceful stop a signal started, so the command can wait for it to finish.
private final class Stopping: @unchecked Sendable {
    private let lock = NSLock()
    private var task: Task<Void, Never>?

    func begin(_ work: @escaping @Sendable () async -> Void) {
        lock.withLock { if task == nil { task = Task { await work() } } }
    }

    func finished() async {
        await lock.withLock { task }?.value
    }
}
