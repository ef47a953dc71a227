import Foundation
import NIOConcurrencyHelpers
import WhaleLoad
import WhaleProtocol
@testable import WhaleRun

/// The reference server's note side in memory: a real ``CollabServer`` state machine behind
/// ``InMemorySocket``s. Frames wait in queues until the test pumps them (`pump()` moves
/// everything until nothing changes, as swift-nio's `interactInMemory` does), so a test decides
/// what the network loses: a frame in flight, an answer, a whole connection.
///
/// ```swift
/// let hub = InMemoryCollab()
/// let session = NoteSession(..., context: context(sockets: hub.sockets))
/// await session.connect(); hub.pump()      // joined
/// ```
final class InMemoryCollab: InMemoryHub, @unchecked Sendable {
    private struct State {
        var server: CollabServer
        var connections: [ObjectIdentifier: (id: ClientID, socket: InMemorySocket)] = [:]
        var byId: [ClientID: InMemorySocket] = [:]
        var up: [(socket: InMemorySocket, bytes: [UInt8])] = []
        var down: [(socket: InMemorySocket, bytes: [UInt8])] = []
        var refusing = false
        var dials = 0
    }

    private let state: NIOLockedValueBox<State>

    init(initialTexts: [String: String] = [:]) {
        state = NIOLockedValueBox(State(server: CollabServer(configuration: .init(initialTexts: initialTexts))))
    }

    /// Sockets to this hub, for a session's or a page's context.
    var sockets: NoteSocketFactory {
        NoteSocketFactory { [unowned self] url, headers, _, onBuffer in
            InMemorySocket(hub: self, dial: .init(url: url, headers: headers), onBuffer: onBuffer)
        }
    }

    /// While true, dials are refused (the server is down).
    var refusesConnections: Bool {
        get { state.withLockedValue { $0.refusing } }
        set { state.withLockedValue { $0.refusing = newValue } }
    }

    var dials: Int { state.withLockedValue { $0.dials } }
    func text(_ resourceId: String) -> String? { state.withLockedValue { $0.server.documents[resourceId]?.text } }
    func revision(_ resourceId: String) -> Int? { state.withLockedValue { $0.server.documents[resourceId]?.revision } }

    func accept(_ socket: InMemorySocket) -> Bool {
        state.withLockedValue { s in
            s.dials += 1
            guard !s.refusing else { return false }
            let version: ProtocolVersion = socket.dial.parameter("protocol") == "2" ? .v2 : .original
            let id = ClientID(
                socket.dial.parameter("clientId") ?? "\(socket.dial.parameter("whalesim-client") ?? "c").\(s.dials)")
            s.connections[ObjectIdentifier(socket)] = (id, socket)
            s.byId[id] = socket
            let userId = socket.dial.header("Authorization") ?? "anonymous"
            route(s.server.handle(.connected(id, userId: userId, protocolVersion: version)), in: &s)
            return true
        }
    }

    func enqueue(_ bytes: [UInt8], from socket: InMemorySocket) {
        state.withLockedValue { $0.up.append((socket, bytes)) }
    }

    func ended(_ socket: InMemorySocket) {
        state.withLockedValue { s in
            guard let (id, _) = s.connections.removeValue(forKey: ObjectIdentifier(socket)) else { return }
            if s.byId[id] === socket { s.byId[id] = nil }
            s.up.removeAll { $0.socket === socket }
            s.down.removeAll { $0.socket === socket }
            route(s.server.handle(.disconnected(id)), in: &s)
        }
    }

    /// Cuts the current connection of `clientId` as the network would (frames in flight are lost).
    func cut(_ clientId: String) {
        let socket = state.withLockedValue { s in s.byId.first { $0.key.rawValue.hasPrefix(clientId) }?.value }
        socket?.end("connection reset")
    }

    /// Hands the client frames in flight to the server; their answers wait in the down queue.
    /// Returns how many frames moved.
    @discardableResult
    func pumpUp() -> Int {
        state.withLockedValue { s in
            var moved = 0
            while !s.up.isEmpty {
                let (socket, bytes) = s.up.removeFirst()
                moved += 1
                guard let id = s.connections[ObjectIdentifier(socket)]?.id,
                    let envelope = try? WireCodec.decodeClient(bytes)
                else { continue }
                route(s.server.handle(.received(id, envelope)), in: &s)
            }
            return moved
        }
    }

    /// Delivers the server's frames in flight (outside the hub's lock: a session answers at once).
    @discardableResult
    func pumpDown() -> Int {
        let frames = state.withLockedValue { s in
            defer { s.down.removeAll() }
            return s.down
        }
        for (socket, bytes) in frames where !socket.isEnded {
            bytes.withUnsafeBytes { socket.onBuffer($0) }
        }
        return frames.count
    }

    /// Moves frames both ways until nothing is left in flight.
    func pump() {
        while pumpUp() + pumpDown() > 0 {}
    }

    private func route(_ actions: [CollabServer.Action], in s: inout State) {
        for case .send(let to, let envelope) in actions {
            guard let socket = s.byId[to] else { continue }
            s.down.append((socket, Array(WireCodec.encode(envelope).utf8)))
        }
    }
}
