/// A floor client's note traffic: ``BareNoteTyping`` (substring searches, no OT) or
/// ``FloorSessionTyping`` (the virtual client's session).
package protocol FloorTyping: SendableMetatype {
    init(index: Int, account: String)
    var joined: Bool { get }
    /// The frames to send once the socket is open (the join).
    mutating func floorOpened() -> [String]
    /// One message from the server: the frames to send now, and whether it acknowledged this client's op.
    mutating func floorReceive(_ payload: UnsafeRawBufferPointer) -> (sends: [String], acked: Bool)
    /// The user's think time is over: the frames to send now (none while an op waits for its ack or the join).
    mutating func floorType() -> [String]
}

extension BareNoteTyping: FloorTyping {
    package mutating func floorOpened() -> [String] { [joinMessage] }
    package mutating func floorReceive(_ payload: UnsafeRawBufferPointer) -> (sends: [String], acked: Bool) {
        let (next, acked) = receive(payload)
        return (next.map { [$0] } ?? [], acked)
    }
    package mutating func floorType() -> [String] {
        type().map { [$0] } ?? []
    }
}
