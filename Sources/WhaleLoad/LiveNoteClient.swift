import Foundation
import NIOConcurrencyHelpers
import WhaleOT
import WhaleProtocol

/// A virtual client on one note over a real socket: the same ``ClientSession`` the simulator
/// drives, fed by frames from a ``LiveSocket``. Reports what happens (acks, remote applies) to
/// `observer` with wall-clock instants, for the latency histograms.
///
/// ```swift
/// let client = LiveNoteClient(url: socketURL, token: jwt, clientId: "c1", userId: "u1", resourceId: accountId)
/// try await client.join()
/// client.edit(position: 0, deleting: 0, inserting: "hi")
/// try await client.waitSynchronized()
/// ```
public final class LiveNoteClient: Sendable {
    /// Something the session did, as it happened.
    public enum Observation: Sendable {
        /// A local edit became (or joined) pending op `opId`.
        case edited(opId: String)
        case acknowledged(opId: String, revision: Int)
        case remoteApplied(revision: Int)
        case joined(revision: Int)
        case failed(String)
    }

    public let clientId: ClientID
    private let session: NIOLockedValueBox<ClientSession>
    private let socket: NIOLockedValueBox<LiveSocket?> = NIOLockedValueBox(nil)
    private let url: String
    private let headers: [(String, String)]
    private let observer: @Sendable (Observation) -> Void
    private let binaryFrames: Bool

    public init(
        url: String, token: String?, clientId: ClientID, userId: String, resourceId: String,
        protocolVersion: ProtocolVersion = .v2, sharesCursor: Bool = true, binaryFrames: Bool = false,
        observer: @escaping @Sendable (Observation) -> Void = { _ in }
    ) {
        self.clientId = clientId
        self.observer = observer
        self.binaryFrames = binaryFrames
        var headers = [("ObjectId", resourceId)]
        if let token { headers.append(("Authorization", token)) }
        self.headers = headers
        self.url = protocolVersion == .v2 ? url + (url.contains("?") ? "&" : "?") + "protocol=2" : url
        session = NIOLockedValueBox(
            ClientSession(
                clientId: clientId, userId: userId, resourceId: resourceId,
                configuration: .init(protocolVersion: protocolVersion, sharesCursor: sharesCursor)))
    }

    /// Opens the socket and joins the note (or resyncs, after a reconnect); returns once joined.
    public func join(timeout: Duration = .seconds(15)) async throws {
        let socket = LiveSocket(url: url, headers: headers) { [weak self] text in self?.receive(text) }
        self.socket.withLockedValue { $0 = socket }
        guard await socket.connected() else {
            throw LiveClientError(
                message:
                    "could not connect to \(url): \(socket.ending?.error ?? "closed \(socket.ending?.closeCode ?? -1)")"
            )
        }
        perform(session.withLockedValue { $0.handle(.connected) })
        try await wait(timeout: timeout, for: "join") { $0.connection == .joined }
    }

    /// Closes the socket (the session keeps its pending ops, as after a network drop).
    public func disconnect() async {
        let socket = self.socket.withLockedValue { s -> LiveSocket? in
            defer { s = nil }; return s
        }
        _ = session.withLockedValue { $0.handle(.disconnected) }
        await socket?.close()
    }

    /// A local edit at scalar offsets of the current text; clamped into the document.
    public func edit(position: Int, deleting: Int, inserting: String) {
        let actions = session.withLockedValue { session -> [ClientSession.Action] in
            let count = session.document.count
            let at = min(max(0, position), count)
            return session.handle(
                .localEdit(position: at, deleting: min(max(0, deleting), count - at), inserting: inserting))
        }
        perform(actions)
    }

    /// A copy of the session (text, revision, pending ops).
    public var state: ClientSession { session.withLockedValue { $0 } }

    /// Waits until nothing is pending.
    public func waitSynchronized(timeout: Duration = .seconds(15)) async throws {
        try await wait(timeout: timeout, for: "acknowledgement") {
            $0.syncState == .synchronized && $0.connection == .joined
        }
    }

    /// Polls the session until `condition` holds.
    public func wait(timeout: Duration, for what: String, _ condition: (ClientSession) -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while !session.withLockedValue({ condition($0) }) {
            if let ending = socket.withLockedValue({ $0 })?.ending {
                throw LiveClientError(
                    message:
                        "\(clientId): socket ended while waiting for \(what) (close \(ending.closeCode ?? -1) \(ending.reason ?? ending.error ?? ""))"
                )
            }
            guard ContinuousClock.now < deadline else {
                throw LiveClientError(message: "\(clientId): no \(what) within \(timeout)")
            }
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    private func receive(_ text: String) {
        guard let envelope = try? WireCodec.decodeServer(Array(text.utf8)) else {
            observer(.failed("undecodable frame: \(text.prefix(200))"))
            return
        }
        perform(session.withLockedValue { $0.handle(.received(envelope)) })
    }

    private func perform(_ actions: [ClientSession.Action]) {
        for action in actions {
            switch action {
            case .send(let envelope):
                socket.withLockedValue { $0 }?.send(WireCodec.encode(envelope), binary: binaryFrames)
            case .acknowledged(let opId, let revision): observer(.acknowledged(opId: opId, revision: revision))
            case .remoteApplied(_, let revision): observer(.remoteApplied(revision: revision))
            case .joined(let revision): observer(.joined(revision: revision))
            case .failed(let message): observer(.failed(message))
            case .diverged(let message): observer(.failed("diverged: \(message)"))
            case .editApplied(let opId, _): observer(.edited(opId: opId))
            case .opsDropped(let opIds, let reason):
                observer(.failed("dropped \(opIds.joined(separator: ",")): \(reason)"))
            }
        }
    }
}

/// A live client could not do what it was asked; the message says what and why.
public struct LiveClientError: Error, CustomStringConvertible {
    public var message: String
    public init(message: String) { self.message = message }
    public var description: String { message }
}
