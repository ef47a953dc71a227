import NIOConcurrencyHelpers
import WhaleProtocol

/// One slice of the notes: a ``CollabServer`` behind its own lock, and an outbox that carries out
/// its sends in order once the ops they announce are durable. Documents are spread over shards by
/// a stable hash of their id (``NoteRouter``), so no single lock serialises every note.
final class NoteShard: Sendable {
    /// Sends waiting for a commit, in the order the state machine produced them.
    struct OutboxItem: Sendable {
        var ticket: GroupCommitter.Ticket?
        var sends: [(ClientID, ServerEnvelope)]
        /// When the docChange that produced an op arrived (for the ack-latency metric).
        var receivedAt: ContinuousClock.Instant?
        var opsApplied: Int
    }

    private let server: NIOLockedValueBox<CollabServer>
    /// The sockets of this shard's members: the outbox finds its recipients here, under this
    /// shard's own lock rather than a registry lock every note would share.
    let sockets = NIOLockedValueBox([ClientID: SocketConnection]())
    private let committer: GroupCommitter
    private let outbox: AsyncStream<OutboxItem>.Continuation
    let items: AsyncStream<OutboxItem>

    init(server: CollabServer, committer: GroupCommitter) {
        self.server = NIOLockedValueBox(server)
        self.committer = committer
        (items, outbox) = AsyncStream.makeStream(of: OutboxItem.self, bufferingPolicy: .unbounded)
    }

    /// Feeds one event. Persists go to the group committer and the sends to the outbox while the
    /// lock is held, so commit order and send order both follow the state machine's order.
    func handle(_ event: CollabServer.Event, receivedAt: ContinuousClock.Instant? = nil) {
        handleLocked(receivedAt: receivedAt) { $0.handle(event) } ticket: { _ in }
    }

    /// Runs `body` on the state machine under the lock and carries out the actions it returns.
    func handleLocked(receivedAt: ContinuousClock.Instant? = nil, _ body: (inout CollabServer) -> [CollabServer.Action],
                      ticket report: (GroupCommitter.Ticket?) -> Void) {
        server.withLockedValue { server in
            let actions = body(&server)
            guard !actions.isEmpty else { return report(nil) }
            var batch = StorageBatch()
            var sends: [(ClientID, ServerEnvelope)] = []
            var applied = 0
            for action in actions {
                switch action {
                case .persist(let entry): batch.noteEntries.append(entry)
                case .send(let client, let envelope): sends.append((client, envelope))
                case .applied: applied += 1
                }
            }
            let ticket = batch.isEmpty ? nil : committer.enqueue(batch)
            report(ticket)
            outbox.yield(OutboxItem(ticket: ticket, sends: sends, receivedAt: applied > 0 ? receivedAt : nil, opsApplied: applied))
        }
    }

    /// A read of the state (tests, `note(accountID)`, metrics).
    func read<T: Sendable>(_ body: (CollabServer) -> T) -> T {
        server.withLockedValue { body($0) }
    }

    func finish() { outbox.finish() }
}

/// Picks the shard of a document by a stable hash (FNV-1a) of its id.
struct NoteRouter: Sendable {
    let shards: [NoteShard]

    func shardIndex(for resourceId: String) -> Int { shardIndex(for: resourceId, count: shards.count) }

    func shardIndex(for resourceId: String, count: Int) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in resourceId.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        return Int(hash % UInt64(count))
    }

    func shard(for resourceId: String) -> NoteShard { shards[shardIndex(for: resourceId)] }
}
