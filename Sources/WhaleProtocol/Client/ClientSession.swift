import WhaleOT

/// One virtual client on one shared note: the ot.js client states (synchronized / awaiting ack /
/// awaiting ack with buffer) plus whalesim's extensions, written sans-I/O: feed it ``Event``s,
/// carry out the ``Action``s it returns. The simulator and the live client drive this same type.
///
/// ```swift
/// var session = ClientSession(clientId: "c1", userId: "u1", resourceId: "acc-1")
/// var actions = session.handle(.connected)          // → .send(resourceConnection)
/// actions = session.handle(.received(conf))         // → .joined
/// actions = session.handle(.localEdit(position: 0, deleting: 0, inserting: "hi"))  // → .send(docChange)
/// ```
///
/// Cursor rules (PROTOCOL.md §3): the client's own selection moves by ``CursorRule/own`` through
/// its own edits and by ``CursorRule/remote`` through remote ops; remote cursors always move by
/// ``CursorRule/remote``.
public struct ClientSession: Sendable {
    /// What the session is configured to speak and which faults it reproduces.
    public struct Configuration: Sendable, Hashable {
        public var protocolVersion: ProtocolVersion
        public var faults: FaultSet
        /// Whether protocol 2 shares this client's selection (`cursorUpdate`). Off for a client that
        /// only types, such as the benchmark's, which measures op delivery alone.
        public var sharesCursor: Bool
        public init(protocolVersion: ProtocolVersion = .v2, faults: FaultSet = [], sharesCursor: Bool = true) {
            self.protocolVersion = protocolVersion
            self.faults = faults
            self.sharesCursor = sharesCursor
        }
    }

    /// The connection as the session knows it.
    public enum ConnectionState: Sendable, Hashable { case disconnected, connecting, joined }

    /// The ot.js synchronisation state.
    public enum SyncState: Sendable, Hashable { case synchronized, awaitingAck, awaitingAckWithBuffer }

    /// A local change not yet acknowledged: its wire id and its current (transformed) form.
    public struct PendingOp: Sendable, Hashable {
        public var opId: String
        public var op: Operation
    }

    /// Another client's selection as this client sees it, in its own document's coordinates.
    public struct RemoteCursorView: Sendable, Hashable {
        public var clientId: ClientID
        public var userId: String
        public var selection: Selection
    }

    public let clientId: ClientID
    public let userId: String
    public let resourceId: String
    public internal(set) var configuration: Configuration

    public internal(set) var connection: ConnectionState = .disconnected
    public internal(set) var document = TextDocument()
    /// The server revision the client has seen (acks plus remote ops).
    public internal(set) var revision = 0
    public internal(set) var outstanding: PendingOp?
    public internal(set) var buffer: PendingOp?
    /// The client's own caret and selection.
    public internal(set) var selection = Selection(cursor: 0)
    /// Remote cursors, sorted by client id.
    public internal(set) var remoteCursors: [RemoteCursorView] = []
    /// True once the client has received a document state at least once.
    public internal(set) var hasJoined = false

    var nextOpSeq = 1
    var nextMessageSeq = 1
    var lastAckedOpSeq = 0
    /// A selection the server has not been told of: set on join and by an explicit selection,
    /// not by edits (the server moves the shared cursor through them itself: ``AuthorCursor``).
    var cursorDirty = false
    /// The outstanding op already sent on the current connection (nil after a disconnect).
    var sentOutstandingOpId: String?

    public init(clientId: ClientID, userId: String, resourceId: String, configuration: Configuration = .init()) {
        self.clientId = clientId
        self.userId = userId
        self.resourceId = resourceId
        self.configuration = configuration
    }

    /// The document text.
    public var text: String { document.text }

    public var syncState: SyncState {
        switch (outstanding, buffer) {
        case (nil, _): .synchronized
        case (_?, nil): .awaitingAck
        case (_?, _?): .awaitingAckWithBuffer
        }
    }

    var speaksV2: Bool { configuration.protocolVersion == .v2 }
    func has(_ fault: Fault) -> Bool { configuration.faults.contains(fault) }

    /// The faults switched on now. Whoever drives the state machine may switch them between
    /// events (the simulator's fault windows, a live runner's schedule); nothing inside reads a clock.
    public var faults: FaultSet {
        get { configuration.faults }
        set { configuration.faults = newValue }
    }
}
