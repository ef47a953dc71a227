import WhaleOT

/// An op the server applied, as sent in a resync: its form in server order and, in protocol 2,
/// the `opId` of the change it came from (so the client recognises its own op as an ack).
public struct MissedOp: Hashable, Sendable {
    public var op: Operation
    public var opId: String?
    public init(op: Operation, opId: String?) {
        self.op = op
        self.opId = opId
    }
}

/// The answer to `resourceConnection`: either the full state (`initialState`) or, on a protocol-2
/// resync from a known revision, the ops since that revision (`missedOps`).
public struct ResourceConnectionConf: Hashable, Sendable {
    public var resourceId: String
    public var revision: Int
    public var initialState: String?
    public var missedOps: [MissedOp]?
    public init(resourceId: String, revision: Int, initialState: String? = nil, missedOps: [MissedOp]? = nil) {
        self.resourceId = resourceId
        self.revision = revision
        self.initialState = initialState
        self.missedOps = missedOps
    }
}

/// Where another client's selection is (protocol 2), at server revision `rev`.
public struct RemoteCursor: Hashable, Sendable {
    public var resourceId: String
    public var userId: String
    public var clientId: ClientID
    public var rev: Int
    public var selection: Selection
    public init(resourceId: String, userId: String, clientId: ClientID, rev: Int, selection: Selection) {
        self.resourceId = resourceId
        self.userId = userId
        self.clientId = clientId
        self.rev = rev
        self.selection = selection
    }
}

/// Protocol 2: where the author of a change has its cursor once the change is applied, carried
/// in the change's broadcast (`data.cursor`) instead of a `cursorUpdate` frame of its own. The
/// server moves the author's last known selection through the author's own op with
/// ``CursorRule/own``, which is where the author's editor puts it; so a client need not send its
/// cursor after each edit, and each op costs one frame per member instead of two.
public struct AuthorCursor: Hashable, Sendable {
    public var userId: String
    public var clientId: ClientID
    public var selection: Selection
    public init(userId: String, clientId: ClientID, selection: Selection) {
        self.userId = userId
        self.clientId = clientId
        self.selection = selection
    }
}

/// Messages from the server to clients.
public enum ServerMessage: Hashable, Sendable {
    case resourceConnectionConf(ResourceConnectionConf)
    /// An applied change, to every client of the document (the sender's copy is its ack).
    /// Protocol 2 members also get the author's cursor after the change when the author shares it.
    case docChangeReturnOps(resourceId: String, op: Operation, opId: String?, cursor: AuthorCursor? = nil)
    /// A model record changed; receivers other than `senderId` refetch. Protocol 2 may carry the
    /// changed record and its pool's `seq` (``RecordUpdate``) so receivers can skip the refetch.
    case resourceUpdate(resourceId: String, senderId: String, update: RecordUpdate? = nil)
    case error(ProtocolError)
    case cursorUpdate(RemoteCursor)
    case presenceLeft(resourceId: String, userId: String, clientId: ClientID)
    /// Protocol 2: this socket is now in `poolId`'s pool, whose last update had `seq` (0 before
    /// the first). Every update with a higher `seq` reaches this socket; a page whose fetch was
    /// answered below `seq` missed the updates in between and fetches again. The server joins a
    /// socket to its pool a moment after the client sees the upgrade done, so without this
    /// marker an update made in that moment would reach neither the page's fetch nor its socket.
    case poolJoined(poolId: String, seq: Int)

    /// The wire `type` string.
    public var typeName: String {
        switch self {
        case .resourceConnectionConf: "resourceConnectionConf"
        case .docChangeReturnOps: "docChangeReturnOps"
        case .resourceUpdate: "resourceUpdate"
        case .error: "error"
        case .cursorUpdate: "cursorUpdate"
        case .presenceLeft: "presenceLeft"
        case .poolJoined: "poolJoined"
        }
    }
}

/// A server message with its envelope fields. `senderId` is the server instance's id.
public struct ServerEnvelope: Hashable, Sendable {
    public var senderId: String
    public var messageId: String
    public var message: ServerMessage
    public init(senderId: String, messageId: String, message: ServerMessage) {
        self.senderId = senderId
        self.messageId = messageId
        self.message = message
    }
}
