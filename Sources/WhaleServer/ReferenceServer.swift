import Foundation
import NIOCore
import WhaleModel
import Logging
import NIOConcurrencyHelpers
import WhaleOT
import WhaleProtocol

/// The live reference server behind `whalesim serve`: the Whaler REST login, GraphQL at
/// `/query`, the websocket at `/socket` (original protocol and protocol 2), `/health` and
/// `/metrics`, all over one port, with every note op and model change in SQLite before it is
/// acknowledged. It drives the same ``CollabServer`` the simulator drives.
///
/// ```swift
/// var configuration = ServerConfiguration()
/// configuration.port = 0
/// configuration.database = ":memory:"
/// let server = try await ReferenceServer.start(configuration)
/// print(server.baseURL)          // http://127.0.0.1:41234
/// await server.stop()            // closes sockets with 1001, commits, stops
/// ```
public final class ReferenceServer: Sendable {
    /// The listening socket's queue of connections not yet accepted. With 256 (Hummingbird's
    /// default, which the server had), after a restart a thousand clients, their pages and the note recorders dial within a
    /// second, the kernel dropped the SYNs past the queue (`ListenOverflows`), and each dropped
    /// client waited out TCP's SYN retransmission (1 s, then 3 s, 7 s) before its catch-up
    /// began. The kernel caps it at `net.core.somaxconn` (4096 on current Linux).
    static let listenBacklog = 4096

    public let configuration: ServerConfiguration
    /// The `senderId` on every server message: this instance's id.
    public let serverId: String
    let storage: any ServerStorage
    let committer: GroupCommitter
    let router: NoteRouter
    let registry = ConnectionRegistry()
    let metrics: ServerMetrics
    let tokens: AccessTokens
    let refreshTokens: RefreshTokenStore
    let model: ModelHub
    let graphQL: WhalerGraphQLAPI
    /// Parsed and validated GraphQL queries, so a repeated query is only resolved.
    let graphQLDocuments: ValidatedDocuments
    let logger: Logger
    /// The `--delay-acks` test hook; nil (no extra hop) unless ``ServerConfiguration/ackDelay`` > 0.
    private let ackDelay: AckDelayLine?
    /// The `--backpressure-log` file; nil unless ``ServerConfiguration/backpressureLog`` is set.
    private let backpressureLog: BackpressureLog?
    private let lifecycle = Lifecycle()

    /// The port actually bound (useful with port 0).
    public var port: Int { lifecycle.listener?.port ?? -1 }
    public var baseURL: String { "http://\(configuration.host):\(port)" }
    public var socketURL: String { "ws://\(configuration.host):\(port)/socket" }

    private init(configuration: ServerConfiguration, storage: any ServerStorage, logger: Logger) throws {
        self.configuration = configuration
        self.storage = storage
        self.logger = logger
        ackDelay = configuration.ackDelay > .zero ? AckDelayLine(delay: configuration.ackDelay) : nil
        backpressureLog = configuration.backpressureLog.flatMap(BackpressureLog.init(path:))
        serverId = UUID().uuidString.lowercased()
        // ack-before-durable: nothing waits for a commit, so it is taken every 50 ms.
        let committer = GroupCommitter(
            storage: storage,
            commitInterval: configuration.faults.contains(.ackBeforeDurable) ? .milliseconds(50) : .zero)
        self.committer = committer
        let secret = configuration.jwtSecret ?? Data((0..<32).map { _ in UInt8.random(in: 0...255) })
        var tokens = AccessTokens(secret: secret)
        if configuration.faults.contains(.tokenExpiryLeewayDay) { tokens.leeway = 24 * 3600 }
        self.tokens = tokens
        refreshTokens = RefreshTokenStore(
            loaded: try storage.loadRefreshTokens(now: Int64(Date().timeIntervalSince1970)),
            revokesExchanged: !configuration.faults.contains(.refreshTokenReuse))
        graphQL = try WhalerGraphQLAPI()
        graphQLDocuments = ValidatedDocuments(schema: graphQL.schema.schema)
        let metrics = ServerMetrics()
        self.metrics = metrics
        model = try ModelHub(
            storage: storage, committer: committer, configuration: configuration, serverId: serverId, logger: logger,
            applied: metrics.mutations)

        // Restore every note from its log, each into the shard its id hashes to.
        let notes = try storage.loadNotes(initialTexts: model.initialNoteTexts)
        let shardCount = max(1, configuration.shards)
        var perShard = Array(repeating: [PersistedDocument](), count: shardCount)
        let placement = NoteRouter(shards: [])
        for note in notes { perShard[placement.shardIndex(for: note.resourceId, count: shardCount)].append(note) }
        let collab = CollabServer.Configuration(
            serverId: serverId, faults: configuration.faults, initialTexts: model.initialNoteTexts)
        router = NoteRouter(
            shards: try perShard.map { documents in
                NoteShard(
                    server: try CollabServer(configuration: collab, restoring: documents), committer: committer,
                    plantedBug: configuration.plantedBug,
                    ackBeforeDurable: configuration.faults.contains(.ackBeforeDurable))
            })
        logger.info(
            "restored notes",
            metadata: ["documents": "\(notes.count)", "ops": "\(notes.reduce(0) { $0 + $1.history.count })"])
    }

    /// Opens the storage, restores notes and model, binds the port; returns once listening.
    public static func start(_ configuration: ServerConfiguration) async throws -> ReferenceServer {
        var logger = Logger(label: "whalesim.serve")
        logger.logLevel = configuration.logLevel
        let storage: any ServerStorage
        do {
            storage = try SQLiteStorage(path: configuration.database, synchronous: configuration.sqliteSynchronous)
        } catch {
            throw ServerStartError(message: "cannot open database \(configuration.database): \(error)")
        }
        let server = try ReferenceServer(configuration: configuration, storage: storage, logger: logger)
        try await server.run()
        return server
    }

    private func run() async throws {
        for shard in router.shards {
            if let line = ackDelay {
                shard.attach { [weak self] items in
                    guard let server = self else { return }
                    line.enqueue(delayed: items.contains { $0.opsApplied > 0 }) { [weak server] in
                        server?.deliver(items, via: shard)
                    }
                }
            } else {
                shard.attach { [weak self] items in self?.deliver(items, via: shard) }
            }
        }
        committer.onCommit { [weak self] outcome in
            guard let self else { return }
            switch outcome {
            case .success: for shard in self.router.shards { shard.pump() }
            case .failure(let error):
                // Fail-stop: an op that is not durable is never acknowledged.
                self.logger.critical("storage write failed; stopping", metadata: ["error": "\(error)"])
                Task { await self.stop() }
            }
        }
        model.attach { [weak self] sends in self?.deliver(sends) }
        let listener: ServerListener
        do {
            listener = try await ServerListener.bind(
                server: self, host: configuration.host, port: configuration.port, backlog: Self.listenBacklog)
        } catch {
            await committer.stop()
            ackDelay?.stop()
            throw ServerStartError(
                message: "could not listen on \(configuration.host):\(configuration.port): \(error)")
        }
        lifecycle.started(listener)
        logger.info("listening", metadata: ["url": "\(baseURL)", "database": "\(configuration.database)"])
    }

    /// Graceful stop: every socket gets a close frame (1001 going away), pending writes are
    /// committed, the listener stops after the requests in flight. Idempotent; a second caller
    /// waits for the first one's stop.
    public func stop() async {
        guard let listener = lifecycle.beginStop() else {
            await lifecycle.waitStopped()
            return
        }
        await closeAllSockets()
        await listener.stop(grace: configuration.closeTimeout)
        // Every item behind a commit is delivered by that commit's own pump before stop returns.
        await committer.stop()
        ackDelay?.stop()
        lifecycle.finished()
    }

    /// Waits until the server has stopped (the CLI: until a signal's stop is done).
    public func waitUntilStopped() async {
        await lifecycle.waitStopped()
    }

    /// Closes every socket and flushes storage; idempotent.
    func closeAllSockets() async {
        for connection in registry.all { connection.close(.goingAway, reason: "server shutting down") }
        // Give clients a moment to answer the close frame before the listener goes.
        let deadline = ContinuousClock.now + configuration.closeTimeout
        while registry.count > 0, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        await committer.stop()
    }

    /// Carries out a shard's ready outbox items, in order (called by the shard's pump). A commit
    /// usually makes several ops durable at once: their frames share one hop per event loop (an
    /// event loop woken once, not once per op) and one flush per connection.
    private func deliver(_ items: [NoteShard.OutboxItem], via shard: NoteShard) {
        var batch = FrameBatch()
        for item in items { add(item.sends, via: shard, to: &batch) }
        batch.flush(self)
        for item in items {
            if item.opsApplied > 0 {
                metrics.opsApplied.increment(by: item.opsApplied)
                if let receivedAt = item.receivedAt {
                    let elapsed = ContinuousClock.now - receivedAt
                    metrics.ackLatency.recordNanoseconds(
                        elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000)
                }
            }
        }
    }

    /// Encodes and sends each send; a broadcast encodes once for all members that get the same
    /// bytes (they share one buffer), and every event loop gets one hop for all its recipients.
    /// Recipients are looked up in the shard's socket table, or the registry for model (pool) sends.
    func deliver(_ sends: [(ClientID, ServerEnvelope)], via shard: NoteShard? = nil) {
        var batch = FrameBatch()
        add(sends, via: shard, to: &batch)
        batch.flush(self)
    }

    private func add(_ sends: [(ClientID, ServerEnvelope)], via shard: NoteShard?, to batch: inout FrameBatch) {
        var previous: (ServerEnvelope, ByteBuffer)?
        let table = shard?.sockets.withLockedValue { table in sends.map { table[$0.0] } }
        for (index, (client, envelope)) in sends.enumerated() {
            guard let connection = table.map({ $0[index] }) ?? registry.get(client) else { continue }
            let bytes: ByteBuffer
            if let previous, previous.0 == envelope {
                bytes = previous.1
            } else {
                bytes = ByteBuffer(string: WireCodec.encode(envelope))
                previous = (envelope, bytes)
            }
            guard let queued = connection.admit() else { continue }
            if queued > configuration.slowClientQueue { setSlow(connection, true) }
            batch.add(connection, bytes)
        }
    }

    /// Tells the connection's shard that its send buffer is full (or drained again).
    func setSlow(_ connection: SocketConnection, _ slow: Bool) {
        let (changed, shardIndex) = connection.state.withLockedValue { state -> (Bool, Int?) in
            guard state.slow != slow else { return (false, nil) }
            state.slow = slow
            return (true, state.shardIndex)
        }
        // A connection not joined to a note yet (a pool socket's first updates) keeps the mark;
        // its shard is told when it joins (``tellShardIfSlow``).
        guard changed, let shardIndex else { return }
        tellShard(shardIndex, connection, slow: slow)
    }

    /// Tells a connection's new shard that it is slow, when it was marked so before it joined
    /// (and is still): the shard's state machine starts every connection as not slow.
    func tellShardIfSlow(_ connection: SocketConnection, shardIndex: Int) {
        if connection.state.withLockedValue({ $0.slow }) { tellShard(shardIndex, connection, slow: true) }
    }

    /// Tells the shard the connection's mark as it is now, not as it was when the caller changed
    /// it: a mark set on the delivering thread and cleared on the event loop may reach the shard
    /// in either order, and the last one told must not leave a drained connection slow. The
    /// backpressure log is written under the shard's lock, in the order the shard took the marks,
    /// with the joined note's revision then: the broadcasts of later revisions are the ones the
    /// mark acts on, which a reproducer must know (times alone are too coarse).
    private func tellShard(_ shardIndex: Int, _ connection: SocketConnection, slow _: Bool) {
        let log = backpressureLog
        router.shards[shardIndex].handleLocked(
            { server in
                let slow = connection.state.withLockedValue { $0.slow }
                let actions = server.handle(.backpressure(connection.id, slow: slow))
                log?.write(client: connection.id.rawValue, slow: slow, note: server.joinedNote(of: connection.id))
                return actions
            }, ticket: { _ in })
    }

    /// Seconds since 1970 (tokens).
    func now() -> Int64 { Int64(Date().timeIntervalSince1970) }

    /// The text and revision of a note as the server holds it now (tests and GraphQL `note`).
    public func note(_ resourceId: String) -> (text: String, revision: Int)? {
        router.shard(for: resourceId).read { server in
            server.documents[resourceId].map { ($0.text, $0.revision) }
        }
    }

    /// How many sockets are open.
    public var connectionCount: Int { registry.count }
    /// How many transactions the group committer has made.
    public var commits: Int { committer.batchesCommitted }
}

/// The server could not start; the message says why.
public struct ServerStartError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
    package init(message: String) { self.message = message }
}

/// Where a server is in its life: started (its listener), stopping, stopped; and who waits for the stop.
private final class Lifecycle: Sendable {
    private enum Phase {
        case starting, running(ServerListener), stopping, stopped
    }
    private struct State {
        var phase = Phase.starting
        var waiters: [CheckedContinuation<Void, Never>] = []
    }
    private let state = NIOLockedValueBox(State())

    var listener: ServerListener? {
        state.withLockedValue { if case .running(let listener) = $0.phase { listener } else { nil } }
    }

    func started(_ listener: ServerListener) { state.withLockedValue { $0.phase = .running(listener) } }

    /// The listener to stop, for the first caller only.
    func beginStop() -> ServerListener? {
        state.withLockedValue { state in
            guard case .running(let listener) = state.phase else { return nil }
            state.phase = .stopping
            return listener
        }
    }

    func finished() {
        let waiters = state.withLockedValue { state in
            state.phase = .stopped
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func waitStopped() async {
        await withCheckedContinuation { continuation in
            let done = state.withLockedValue { state -> Bool in
                if case .stopped = state.phase { return true }
                state.waiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }
}

extension ReferenceServer {
    /// A note's text now: the document's, or the seed's initial text if nobody has opened it.
    func noteText(_ accountId: String) -> String {
        note(accountId)?.text ?? model.initialNoteTexts[accountId] ?? ""
    }

    /// `saveNote`: the whole content as one op through the note's shard, durable when this returns.
    func saveNote(_ accountId: String, content: String) async throws -> String {
        let (ticket, text, _) = router.shard(for: accountId).replaceText(accountId, with: content)
        if let ticket, !configuration.faults.contains(.ackBeforeDurable) { try await committer.waitDurable(ticket) }
        return text
    }
}
