import WhaleOT

/// The collaboration server's note logic for every document and connection, sans-I/O: feed it
/// connection events, carry out the actions. The simulator and the live reference server drive
/// this same type.
///
/// ```swift
/// var server = CollabServer()
/// _ = server.handle(.connected("c1", userId: "u1", protocolVersion: .v2))
/// let actions = server.handle(.received("c1", joinEnvelope))  // → .send("c1", resourceConnectionConf)
/// ```
///
/// Broadcasts go to members in ascending client id order. An op is persisted (``Action/persist``)
/// before it is acknowledged, so a restart from the persisted entries loses no acknowledged op.
public struct CollabServer: Sendable {
    public struct Configuration: Sendable {
        /// The `senderId` the server puts on every message.
        public var serverId: String
        public var faults: FaultSet
        /// Text a document starts with when first joined (notes are created on first read).
        public var initialTexts: [String: String]
        public init(serverId: String = "whalesim-server", faults: FaultSet = [], initialTexts: [String: String] = [:]) {
            self.serverId = serverId
            self.faults = faults
            self.initialTexts = initialTexts
        }
    }

    public enum Event: Sendable, Hashable {
        case connected(ClientID, userId: String, protocolVersion: ProtocolVersion)
        case received(ClientID, ClientEnvelope)
        case disconnected(ClientID)
        /// The transport says the client's send buffer is full (`slow`) or drained again.
        case backpressure(ClientID, slow: Bool)
    }

    public enum Action: Sendable, Hashable {
        case send(ClientID, ServerEnvelope)
        /// Write this durably before carrying out the sends that follow it.
        case persist(PersistEntry)
        /// For the history: `op` (in server order) became `revision` of `resourceId`.
        case applied(resourceId: String, revision: Int, op: Operation, opId: String?, author: ClientID)
    }

    struct Connection: Sendable {
        var userId: String
        var protocolVersion: ProtocolVersion
        var resourceId: String?
        var slow = false
    }

    public internal(set) var configuration: Configuration
    public internal(set) var documents: [String: ServerDocument] = [:]
    var connections: [ClientID: Connection] = [:]
    var nextMessageSeq = 1

    public init(configuration: Configuration = .init()) {
        self.configuration = configuration
    }

    /// A server restarted from persisted documents: no connections, history intact.
    public init(configuration: Configuration = .init(), restoring persisted: [PersistedDocument]) throws(OTError) {
        self.init(configuration: configuration)
        for entry in persisted {
            documents[entry.resourceId] = try ServerDocument(restoring: entry)
        }
    }

    /// Feeds one event; returns the actions to carry out, in order.
    public mutating func handle(_ event: Event) -> [Action] {
        var actions: [Action] = []
        switch event {
        case .connected(let client, let userId, let version):
            connections[client] = Connection(userId: userId, protocolVersion: version)
        case .disconnected(let client):
            leave(client, &actions)
            connections[client] = nil
        case .backpressure(let client, let slow):
            connections[client]?.slow = slow
        case .received(let client, let envelope):
            guard let connection = connections[client] else { return actions }
            receive(envelope, from: client, connection, &actions)
        }
        return actions
    }

    /// The note `client` has joined and its revision now, if it has joined one: a backpressure
    /// change handled now acts on the broadcasts of the revisions after it (a live server's
    /// backpressure log says so, for reproducers).
    public func joinedNote(of client: ClientID) -> (resourceId: String, revision: Int)? {
        guard let id = connections[client]?.resourceId, let document = documents[id] else { return nil }
        return (id, document.revision)
    }

    func has(_ fault: Fault) -> Bool { configuration.faults.contains(fault) }

    /// The faults switched on now. Whoever drives the state machine may switch them between
    /// events (the simulator's fault windows, a live runner's schedule); nothing inside reads a clock.
    public var faults: FaultSet {
        get { configuration.faults }
        set { configuration.faults = newValue }
    }

    mutating func makeMessageId() -> String {
        defer { nextMessageSeq += 1 }
        return "s\(nextMessageSeq)"
    }

    /// Sends unless the fault drops messages to a slow client.
    func send(_ message: ServerMessage, messageId: String, to client: ClientID, _ actions: inout [Action]) {
        if has(.serverDropsSlowClient), connections[client]?.slow == true { return }
        actions.append(
            .send(client, ServerEnvelope(senderId: configuration.serverId, messageId: messageId, message: message)))
    }

    /// Refuses a message: protocol 2 gets an `error`; the original protocol has none, so nothing is sent.
    func refuse(_ error: ProtocolError, to client: ClientID, _ connection: Connection, _ actions: inout [Action]) {
        guard connection.protocolVersion == .v2 else { return }
        send(.error(error), messageId: "e:" + (error.inReplyTo ?? "-"), to: client, &actions)
    }
}
