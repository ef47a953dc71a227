/// Any one record the model stores and sends, tagged with its type. `key` (`"account:acc-1"`)
/// is unique across types: the persistence key, and the unit the model checker compares.
///
/// ```swift
/// let record = ModelRecord.task(call)
/// record.recordType   // "task"
/// record.key          // "task:t-9f2c"
/// ```
///
/// Indirect: stored inline, every value would be as large as the largest case (an ``Account``,
/// about 270 bytes), and a thousand model pages keep their records in dictionaries, one slot per
/// record and spare slots besides; boxed, a slot is a pointer and each record takes its own size
/// (issue 21: the soak's pages grew by this more than by anything else).
public indirect enum ModelRecord: Codable, Hashable, Sendable {
    case organization(Organization)
    case user(User)
    case account(Account)
    case contact(Contact)
    case task(TaskItem)
    case assignment(AssignmentEntry)
    case tracking(Tracking)

    /// The `recordType` of a protocol-2 `resourceUpdate`.
    public var recordType: String {
        switch self {
        case .organization: "organization"
        case .user: "user"
        case .account: "account"
        case .contact: "contact"
        case .task: "task"
        case .assignment: "assignment"
        case .tracking: "tracking"
        }
    }

    public var id: String {
        switch self {
        case .organization(let r): r.id
        case .user(let r): r.id
        case .account(let r): r.id
        case .contact(let r): r.id
        case .task(let r): r.id
        case .assignment(let r): r.id
        case .tracking(let r): r.id
        }
    }

    public var key: String { "\(recordType):\(id)" }
}

/// One durable write, in the order the model asks for them (``ModelServer/Action/persist(_:)``).
/// Upserts by ``key``: keeping the last change per key and replaying those in any order rebuilds
/// the same ``ModelState`` (``ModelServer/init(restoring:)``).
public enum ModelChange: Codable, Hashable, Sendable {
    /// A record written (an untracking is a `Tracking` with `tracked == false`).
    case record(ModelRecord)
    case credential(Credential)
    /// A pool's update counter.
    case poolSeq(poolId: String, seq: Int)
    /// The server-order counter and the id counter.
    case counters(order: Int, nextId: Int)

    public var key: String {
        switch self {
        case .record(let r): r.key
        case .credential(let c): "credential:\(c.userId)"
        case .poolSeq(let poolId, _): "seq:\(poolId)"
        case .counters: "counters"
        }
    }
}
