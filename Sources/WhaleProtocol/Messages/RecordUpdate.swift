/// What a protocol-2 `resourceUpdate` carries besides `resourceId` and `senderId` (PROTOCOL.md §3):
/// the changed record as JSON (so this target needs no model types), its type, and the pool's
/// `seq` (one more per update sent to the pool, so a receiver can notice a gap and refetch).
///
/// ```swift
/// let update = RecordUpdate(recordType: "account", record: .object([("id", .string("a1")), ("state", .string("Worked"))]), seq: 7)
/// ServerMessage.resourceUpdate(resourceId: "a1", senderId: "c1", update: update)
/// // data: {"resourceId":"a1","senderId":"c1","recordType":"account","record":{…},"seq":7}
/// ```
public struct RecordUpdate: Hashable, Sendable {
    /// `account`, `contact`, `task`, `assignment` (and `tracking` for a tracking change).
    public var recordType: String
    public var record: WireJSON
    public var seq: Int
    public init(recordType: String, record: WireJSON, seq: Int) {
        self.recordType = recordType
        self.record = record
        self.seq = seq
    }
}
