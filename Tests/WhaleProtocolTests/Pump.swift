import WhaleOT
import WhaleProtocol

/// Clients and a server wired by FIFO queues, stepped by hand: messages move only when a test
/// says so, so every interleaving a test needs can be written down.
struct Pump {
    var server: CollabServer
    var clients: [ClientSession]
    var toServer: [[ClientEnvelope]]
    var toClient: [[ServerEnvelope]]
    var connected: [Bool]
    var clientActions: [[ClientSession.Action]]
    var serverActions: [CollabServer.Action] = []

    init(
        clients count: Int, version: ProtocolVersion = .v2, clientFaults: FaultSet = [], serverFaults: FaultSet = [],
        text: String = ""
    ) {
        server = CollabServer(configuration: .init(faults: serverFaults, initialTexts: ["doc": text]))
        clients = (0..<count).map { i in
            ClientSession(
                clientId: ClientID("c\(i)"), userId: "u\(i)", resourceId: "doc",
                configuration: .init(protocolVersion: version, faults: clientFaults))
        }
        toServer = Array(repeating: [], count: count)
        toClient = Array(repeating: [], count: count)
        connected = Array(repeating: false, count: count)
        clientActions = Array(repeating: [], count: count)
    }

    func index(of id: ClientID) -> Int { Int(id.rawValue.dropFirst())! }

    mutating func connect(_ i: Int) {
        connected[i] = true
        serverDo(
            server.handle(
                .connected(
                    clients[i].clientId, userId: clients[i].userId,
                    protocolVersion: clients[i].configuration.protocolVersion)))
        clientDo(i, clients[i].handle(.connected))
    }

    mutating func disconnect(_ i: Int) {
        connected[i] = false
        toServer[i].removeAll()
        toClient[i].removeAll()
        serverDo(server.handle(.disconnected(clients[i].clientId)))
        clientDo(i, clients[i].handle(.disconnected))
    }

    mutating func edit(_ i: Int, at position: Int, deleting: Int = 0, inserting text: String = "") {
        clientDo(i, clients[i].handle(.localEdit(position: position, deleting: deleting, inserting: text)))
    }

    mutating func select(_ i: Int, _ selection: Selection) {
        clientDo(i, clients[i].handle(.localSelection(selection)))
    }

    mutating func clientDo(_ i: Int, _ actions: [ClientSession.Action]) {
        clientActions[i] += actions
        for case .send(let envelope) in actions where connected[i] { toServer[i].append(envelope) }
    }

    mutating func serverDo(_ actions: [CollabServer.Action]) {
        serverActions += actions
        for case .send(let id, let envelope) in actions where connected[index(of: id)] {
            toClient[index(of: id)].append(envelope)
        }
    }

    /// Delivers one message from client i to the server; false if none was waiting.
    @discardableResult mutating func deliverToServer(_ i: Int) -> Bool {
        guard !toServer[i].isEmpty else { return false }
        let envelope = toServer[i].removeFirst()
        serverDo(server.handle(.received(clients[i].clientId, envelope)))
        return true
    }

    @discardableResult mutating func deliverToClient(_ i: Int) -> Bool {
        guard !toClient[i].isEmpty else { return false }
        let envelope = toClient[i].removeFirst()
        clientDo(i, clients[i].handle(.received(envelope)))
        return true
    }

    /// Moves messages, clients in order, until nothing moves.
    mutating func settle() {
        var moved = true
        while moved {
            moved = false
            for i in clients.indices {
                while deliverToServer(i) { moved = true }
            }
            for i in clients.indices {
                while deliverToClient(i) { moved = true }
            }
        }
    }

    var texts: [String] { clients.map(\.text) }
    var serverText: String { server.documents["doc"]?.text ?? "" }
}
