import WhaleProtocol

/// What a floor client types and reads when it does the virtual client's own work
/// (`bench run --floor`, the "floor with the session" run): the same ``ClientSession`` a
/// `NoteSession` drives, fed every frame through the runner's decoder (``WireCodec``: JSON in,
/// OT transform and apply, remote cursors moved) and encoding what it sends, on the floor's
/// plain epoll loop. What it leaves out is what only a run has: the record, the metrics, the
/// op registry, the session's lock, the Swift task and timer of each user, NIO's channels.
///
/// Why it exists: the gap between the full client and the floor is the runner's whole overhead.
/// This splits it into the client's own work (here) and the rest (NIO, tasks, the record), which
/// is what decides whether moving the runner onto a loop of its own would meet its CPU target
/// (docs/decisions/0030-bench-run-yardsticks.md).
package struct FloorSessionTyping: FloorTyping {
    private var session: ClientSession

    package init(index: Int, account: String) {
        session = ClientSession(
            clientId: ClientID("floor\(index)"), userId: "floor-user", resourceId: account,
            configuration: .init(protocolVersion: .v2))
    }

    package var joined: Bool { session.connection == .joined }

    package mutating func floorOpened() -> [String] { Self.frames(session.handle(.connected)).sends }

    package mutating func floorReceive(_ payload: UnsafeRawBufferPointer) -> (sends: [String], acked: Bool) {
        guard let envelope = try? WireCodec.decodeServer(Array(payload)) else { return ([], false) }
        return Self.frames(session.handle(.received(envelope)))
    }

    /// One character at the end of the note, as the bare clients type (a pending op composes
    /// into the buffer until the ack, as the client does).
    package mutating func floorType() -> [String] {
        guard joined else { return [] }
        return Self.frames(session.handle(.localEdit(position: session.document.count, deleting: 0, inserting: "x")))
            .sends
    }

    private static func frames(_ actions: [ClientSession.Action]) -> (sends: [String], acked: Bool) {
        var sends: [String] = [], acked = false
        for action in actions {
            switch action {
            case .send(let envelope): sends.append(WireCodec.encode(envelope))
            case .acknowledged: acked = true
            default: break
            }
        }
        return (sends, acked)
    }
}
