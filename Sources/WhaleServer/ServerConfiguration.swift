import Foundation
import Logging
import WhaleProtocol

/// Everything `whalesim serve` can be told. Defaults suit a CI run on one machine.
///
/// ```swift
/// var configuration = ServerConfiguration()
/// configuration.port = 0                 // any free port; `ReferenceServer.port` says which
/// configuration.database = ":memory:"
/// let server = try await ReferenceServer.start(configuration)
/// ```
public struct ServerConfiguration: Sendable {
    public var host = "127.0.0.1"
    public var port = 8080
    /// A SQLite file (created and migrated if needed), or `:memory:`.
    public var database = "whalesim.sqlite"
    /// The organizations, users (plain passwords, hashed on first start), accounts... to seed.
    public var fixtures: URL?
    /// Largest websocket message accepted; bigger ones get `tooLarge` (protocol 2) and are dropped.
    public var maxMessageBytes = 64 * 1024
    /// Messages a second per connection (bursts of twice that); past it `rateLimited`. 0 = no limit.
    public var maxMessagesPerSecond = 500
    /// Open sockets at most; more upgrades are refused with HTTP 503.
    public var maxConnections = 15_000
    /// Queued outgoing frames past which a connection counts as slow (`server-drops-slow-client`;
    /// `serve --slow-client-queue`, a live scenario's `live.slow-client-queue`). A connection marked
    /// slow stays slow until its channel becomes writable again after a full send buffer.
    public var slowClientQueue = 1_000
    /// A file to append one JSON line to each time a connection is marked slow or drained
    /// (`{"ms":UNIX_MS,"client":"ID","slow":true}`; `serve --backpressure-log`), so a live run can
    /// put in its history when the server did, which only the server knows. Nil (the default): none.
    public var backpressureLog: String?
    /// Serve the original protocol only, byte for byte: `?protocol=2` is ignored, messages over
    /// 512 bytes close the socket as the original's read limit does, bad input gets silence.
    public var compatibility = false
    /// Catalog faults switched on inside the state machines (for the load runner's own tests).
    public var faults: FaultSet = []
    /// The HS256 key. Random per start when nil (tokens then die with the process).
    public var jwtSecret: Data?
    /// bcrypt cost for seeded and created passwords (the original uses Go's default, 10).
    public var bcryptCost: UInt8 = 10
    /// Document shards, each with its own lock (default: one per core).
    public var shards = ProcessInfo.processInfo.activeProcessorCount
    /// How long a graceful shutdown waits for clients to answer the close frame.
    public var closeTimeout: Duration = .seconds(2)
    public var logLevel: Logger.Level = .info
    /// Test hook (`whalesim serve --delay-acks MS`): hold every applied op's ack and broadcast
    /// this long before sending them, to plant a known latency regression. Zero (the default)
    /// leaves delivery untouched.
    public var ackDelay: Duration = .zero
    /// Test hook (`whalesim serve --plant NAME`): a server bug that loses, skips or misorders
    /// ops, planted so the live checkers can be shown to catch it. Nil (the default): none.
    public var plantedBug: PlantedBug?
    /// SQLite's `synchronous` pragma (`serve --sqlite-synchronous`). `full` (the default) makes a
    /// commit durable before it returns; `off` leaves it to the OS, so a power loss takes
    /// acknowledged ops with it (what a `power-loss` window must catch).
    public var sqliteSynchronous: SQLiteSynchronous = .full

    public init() {}
}
