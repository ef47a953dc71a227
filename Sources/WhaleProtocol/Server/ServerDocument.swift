import WhaleOT

/// One shared note on the server: its text, its history of applied ops (revision = history
/// count), the op ids it has applied (so a resend is acknowledged again, not applied twice), its
/// members and their cursors. Pure state; ``CollabServer`` routes connections to it.
public struct ServerDocument: Sendable {
    /// A member connection of this document.
    public struct Member: Sendable, Hashable {
        public var clientId: ClientID
        public var userId: String
        public var protocolVersion: ProtocolVersion
        /// The member's last selection, at the current revision (protocol 2).
        public var selection: Selection?
    }

    public let resourceId: String
    public internal(set) var document: TextDocument
    /// The text the history starts from.
    public internal(set) var initialText: String
    public internal(set) var history: [Operation] = []
    /// `opIds[i]` is the op id of `history[i]`, when the change carried one.
    public internal(set) var opIds: [String?] = []
    /// Members sorted by client id, so broadcasts go out in a deterministic order.
    public internal(set) var members: [Member] = []
    var appliedOpIds: [String: Int] = [:]

    public init(resourceId: String, text: String = "") {
        self.resourceId = resourceId
        self.initialText = text
        self.document = TextDocument(text)
    }

    /// Rebuilds a document from its persisted log (a server restart).
    public init(restoring persisted: PersistedDocument) throws(OTError) {
        self.init(resourceId: persisted.resourceId, text: persisted.initialText)
        for (op, opId) in zip(persisted.history, persisted.opIds) {
            try document.apply(op)
            append(op, opId: opId)
        }
    }

    /// The revision: how many ops the history holds.
    public var revision: Int { history.count }
    public var text: String { document.text }

    /// What a restart needs to rebuild this document exactly.
    public var persisted: PersistedDocument {
        PersistedDocument(resourceId: resourceId, initialText: initialText, history: history, opIds: opIds)
    }

    mutating func append(_ op: Operation, opId: String?) {
        history.append(op)
        opIds.append(opId)
        if let opId { appliedOpIds[opId] = history.count }
    }

    func memberIndex(_ clientId: ClientID) -> Int? {
        members.firstIndex { $0.clientId == clientId }
    }

    mutating func addMember(_ member: Member) {
        if let index = memberIndex(member.clientId) {
            members[index] = member
        } else {
            let index = members.firstIndex { $0.clientId > member.clientId } ?? members.count
            members.insert(member, at: index)
        }
    }

    /// The revision reset of fault `revision-reset-on-empty`: the text stays, the history goes.
    mutating func resetHistory() {
        initialText = document.text
        history.removeAll()
        opIds.removeAll()
        appliedOpIds.removeAll()
    }
}

/// A document's durable state: enough to rebuild it after a crash. The reference server writes
/// one `PersistEntry` per applied op; replaying them onto `initialText` gives this.
public struct PersistedDocument: Sendable, Hashable {
    public var resourceId: String
    public var initialText: String
    public var history: [Operation]
    public var opIds: [String?]
    public init(resourceId: String, initialText: String, history: [Operation] = [], opIds: [String?] = []) {
        self.resourceId = resourceId
        self.initialText = initialText
        self.history = history
        self.opIds = opIds
    }

    /// Appends one persisted entry: an op, or a reset of the history to the entry's text.
    public mutating func append(_ entry: PersistEntry) {
        if let base = entry.resetText {
            initialText = base
            history.removeAll()
            opIds.removeAll()
        }
        if let op = entry.op {
            history.append(op)
            opIds.append(entry.opId)
        }
    }
}

/// One durable write: an op appended at `revision`, or (`op == nil`) a history reset to `resetText`.
public struct PersistEntry: Sendable, Hashable {
    public var resourceId: String
    public var revision: Int
    public var op: Operation?
    public var opId: String?
    public var resetText: String?
    public init(resourceId: String, revision: Int, op: Operation?, opId: String?, resetText: String? = nil) {
        self.resourceId = resourceId
        self.revision = revision
        self.op = op
        self.opId = opId
        self.resetText = resetText
    }
}
