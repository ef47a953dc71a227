import NIOConcurrencyHelpers
import NIOCore
import WhaleProtocol

/// One slice of the notes: a ``CollabServer`` behind its own lock, and an outbox that carries out
/// its sends in order once the ops they announce are durable. Documents are spread over shards by
/// a stable hash of their id (``NoteRouter``), so no single lock serialises every note.
///
/// The outbox is pumped, not drained by a task: whoever makes an item ready delivers it at once on
/// its own thread (the group committer's thread after a commit, the caller for a send that waits for
/// no commit). An op's ack used to cross three more threads on its way out (a stream into a drain
/// task, a continuation resumed from the committer, then the event loop), and on two busy cores each
/// crossing could wait for a time slice (docs/decisions/0016-server-write-path.md has the figures).
final class NoteShard: Sendable {
    /// Sends waiting for a commit, in the order the state machine produced them.
    struct OutboxItem: Sendable {
        var ticket: GroupCommitter.Ticket?
        var sends: [(ClientID, ServerEnvelope)]
        /// When the docChange that produced an op arrived (for the ack-latency metric).
        var receivedAt: ContinuousClock.Instant?
        var opsApplied: Int
    }

    private struct Outbox {
        var items = CircularBuffer<OutboxItem>()
        /// One pump at a time delivers, so sends leave in the state machine's order; anyone else
        /// who finds it pumping leaves the new work to it (it looks again before it stops).
        var pumping = false
        var deliver: (@Sendable ([OutboxItem]) -> Void)?
    }

    private let server: NIOLockedValueBox<CollabServer>
    /// The sockets of this shard's members: the outbox finds its recipients here, under this
    /// shard's own lock rather than a registry lock every note would share.
    let sockets = NIOLockedValueBox([ClientID: SocketConnection]())
    private let committer: GroupCommitter
    private let outbox = NIOLockedValueBox(Outbox())
    /// The `--plant` test hook's state; nil (the default) leaves the actions as they are.
    private let planted: NIOLockedValueBox<PlantedBugState>?
    /// The `ack-before-durable` catalog fault: sends leave once their commit is queued, not
    /// once it is durable (the commit itself still runs, synced, a moment later).
    private let ackBeforeDurable: Bool

    init(server: CollabServer, committer: GroupCommitter, plantedBug: PlantedBug? = nil, ackBeforeDurable: Bool = false)
    {
        self.server = NIOLockedValueBox(server)
        self.committer = committer
        planted = plantedBug.map { NIOLockedValueBox(PlantedBugState(bug: $0)) }
        self.ackBeforeDurable = ackBeforeDurable
    }

    /// Where ready items go (the server's `deliver`); set once before the first event.
    func attach(_ deliver: @escaping @Sendable ([OutboxItem]) -> Void) {
        outbox.withLockedValue { $0.deliver = deliver }
    }

    /// Feeds one event. Persists go to the group committer and the sends to the outbox while the
    /// lock is held, so commit order and send order both follow the state machine's order.
    func handle(_ event: CollabServer.Event, receivedAt: ContinuousClock.Instant? = nil) {
        handleLocked(receivedAt: receivedAt) {
            $0.handle(event)
        } ticket: { _ in
        }
    }

    /// Runs `body` on the state machine under the lock and carries out the actions it returns.
    func handleLocked(
        receivedAt: ContinuousClock.Instant? = nil, _ body: (inout CollabServer) -> [CollabServer.Action],
        ticket report: (GroupCommitter.Ticket?) -> Void
    ) {
        let queued = server.withLockedValue { server -> Bool in
            let actions = body(&server)
            guard !actions.isEmpty else { report(nil); return false }
            var batch = StorageBatch()
            var sends: [(ClientID, ServerEnvelope)] = []
            var applied: [(resourceId: String, revision: Int, author: ClientID)] = []
            for action in actions {
                switch action {
                case .persist(let entry): batch.noteEntries.append(entry)
                case .send(let client, let envelope): sends.append((client, envelope))
                case .applied(let resourceId, let revision, _, _, let author):
                    applied.append((resourceId, revision, author))
                }
            }
            planted?.withLockedValue { $0.plant(entries: &batch.noteEntries, sends: &sends, applied: applied) }
            let ticket = batch.isEmpty ? nil : committer.enqueue(batch)
            report(ticket)
            let item = OutboxItem(
                ticket: ackBeforeDurable ? nil : ticket, sends: sends, receivedAt: applied.isEmpty ? nil : receivedAt,
                opsApplied: applied.count)
            outbox.withLockedValue { $0.items.append(item) }
            return true
        }
        // Outside the state machine's lock: delivering may come back here (a full send buffer
        // reports backpressure to this shard). An item behind a commit is usually pumped by the
        // committer, but its commit may have finished before the item was queued: look anyway.
        if queued { pump() }
    }

    /// Delivers every item at the head of the outbox whose commit is durable, in order.
    func pump() {
        var owner = false
        while true {
            let (ready, deliver) = outbox.withLockedValue { o -> ([OutboxItem], (@Sendable ([OutboxItem]) -> Void)?) in
                if !owner {
                    if o.pumping { return ([], nil) }
                    o.pumping = true
                    owner = true
                }
                let durable = committer.durableTicket
                var ready: [OutboxItem] = []
                while let first = o.items.first, (first.ticket ?? 0) <= durable { ready.append(o.items.removeFirst()) }
                if ready.isEmpty || o.deliver == nil { o.pumping = false; return ([], nil) }
                return (ready, o.deliver)
            }
            guard let deliver else { return }
            deliver(ready)
        }
    }

    /// A read of the state (tests, `note(accountID)`, metrics).
    func read<T: Sendable>(_ body: (CollabServer) -> T) -> T {
        server.withLockedValue { body($0) }
    }

    /// Items still waiting (for a commit, or for a pump under way).
    var outboxCount: Int { outbox.withLockedValue { $0.items.count } }
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
