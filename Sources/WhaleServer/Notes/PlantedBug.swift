import WhaleProtocol

/// Test hook (`whalesim serve --plant NAME`, ``ServerConfiguration/plantedBug``): a server bug of
/// the kind collaborative backends ship, planted in the live server's delivery and storage path
/// (outside the ``CollabServer`` state machine, where the catalog faults live), so the live
/// checkers can be shown to catch a server that loses, skips or misorders ops. Off by default;
/// each bug strikes on a fixed rule of revisions, so a run shows it many times and a test can say
/// which ops it hit.
public enum PlantedBug: String, CaseIterable, Sendable {
    /// Acknowledges (and broadcasts) ops past revision 15 of a note without writing them: they
    /// live in memory only, so the next restart takes the note back to revision 15 (the classic
    /// "ack before write" loss; a kill without a restart shows nothing).
    case loseAckedOps = "lose-acked-ops"
    /// Never sends the broadcast of every tenth op (revisions 5, 15, 25...) to the first member
    /// (by id) other than its author: that member misses the op for good.
    case skipBroadcast = "skip-broadcast"
    /// Holds the broadcast of every tenth op (revisions 5, 15, 25...) to the first member other
    /// than its author, and sends it after the next op frame (a broadcast or its own ack) that
    /// member gets: two ops arrive swapped.
    case misorderBroadcast = "misorder-broadcast"

    /// One line saying what the bug does.
    public var summary: String {
        switch self {
        case .loseAckedOps: "acknowledges ops past revision 15 of a note without writing them (lost on restart)"
        case .skipBroadcast: "never sends the broadcast of revisions 5, 15, 25... to one member"
        case .misorderBroadcast: "sends the broadcast of revisions 5, 15, 25... to one member after the next op it gets"
        }
    }

    /// Revisions past this are not written under ``loseAckedOps``.
    static let durableRevisions = 15

    func strikes(_ revision: Int) -> Bool { revision % 10 == 5 }
}

/// Carries out a ``PlantedBug`` on one batch of a shard's actions; holds what ``PlantedBug/misorderBroadcast``
/// delays. Lives under the shard's lock, like the state machine.
struct PlantedBugState: Sendable {
    let bug: PlantedBug
    /// Broadcasts held back per member, sent after that member's next op frame.
    private var held: [ClientID: [ServerEnvelope]] = [:]

    init(bug: PlantedBug) { self.bug = bug }

    /// Rewrites what one event made the state machine do: which entries are written and which
    /// frames go out. `applied` are the ops it applied (revision and author, in order).
    mutating func plant(
        entries: inout [PersistEntry], sends: inout [(ClientID, ServerEnvelope)],
        applied: [(resourceId: String, revision: Int, author: ClientID)]
    ) {
        switch bug {
        case .loseAckedOps:
            entries.removeAll { $0.op != nil && $0.revision > PlantedBug.durableRevisions }
        case .skipBroadcast, .misorderBroadcast:
            var victims: Set<ClientID> = []
            for op in applied where bug.strikes(op.revision) {
                let members = sends.filter { $0.0 != op.author && isOp($0.1) }.map(\.0).sorted()
                if let victim = members.first { victims.insert(victim) }
            }
            var out: [(ClientID, ServerEnvelope)] = []
            for (client, envelope) in sends {
                guard isOp(envelope) else { out.append((client, envelope)); continue }
                if victims.contains(client) {
                    if bug == .misorderBroadcast { held[client, default: []].append(envelope) }
                    victims.remove(client)
                    continue
                }
                out.append((client, envelope))
                if let late = held.removeValue(forKey: client) { out += late.map { (client, $0) } }
            }
            sends = out
        }
    }

    /// A `docChangeReturnOps`: an op's broadcast, or its ack to the author.
    private func isOp(_ envelope: ServerEnvelope) -> Bool {
        if case .docChangeReturnOps = envelope.message { return true }
        return false
    }
}
