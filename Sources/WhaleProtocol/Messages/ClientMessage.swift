import WhaleOT

/// A change a client sends: `op` is based on server revision `rev`. `opId` (`"<clientId>:<seq>"`,
/// protocol 2) makes a resend after a reconnect idempotent.
public struct DocChange: Hashable, Sendable {
    public var resourceId: String
    public var rev: Int
    public var op: Operation
    public var opId: String?
    public init(resourceId: String, rev: Int, op: Operation, opId: String? = nil) {
        self.resourceId = resourceId
        self.rev = rev
        self.op = op
        self.opId = opId
    }
}

/// Messages from a client to the server.
public enum ClientMessage: Hashable, Sendable {
    /// Join a document. `revision` (protocol 2) asks for the ops since that revision (resync).
    case resourceConnection(resourceId: String, revision: Int?)
    case docChange(DocChange)
    /// Protocol 2: the client's selection at server revision `rev`.
    case cursorUpdate(resourceId: String, rev: Int, selection: Selection)

    /// The wire `type` string.
    public var typeName: String {
        switch self {
        case .resourceConnection: "resourceConnection"
        case .docChange: "docChange"
        case .cursorUpdate: "cursorUpdate"
        }
    }
}

/// A client message with its `messageId` (clients omit `senderId`).
public struct ClientEnvelope: Hashable, Sendable {
    public var messageId: String
    public var message: ClientMessage
    public init(messageId: String, message: ClientMessage) {
        self.messageId = messageId
        self.message = message
    }
}
