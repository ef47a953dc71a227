import Foundation
import NIOConcurrencyHelpers
import WhaleModel
import WhaleProtocol
@testable import WhaleRun

/// The reference server's model side in memory: a real ``ModelServer`` state machine answers
/// the pages' GraphQL calls (``WhalerNetworking``) and keeps the pool sockets
/// (``InMemorySocket``). Page answers and pool updates wait until the test pumps them, so a
/// test decides what a page misses while its socket is down.
final class InMemoryModel: InMemoryHub, WhalerNetworking, @unchecked Sendable {
    private struct State {
        var server: ModelServer
        var sockets: [ObjectIdentifier: (id: ClientID, socket: InMemorySocket)] = [:]
        var byId: [ClientID: InMemorySocket] = [:]
        var down: [(socket: InMemorySocket, bytes: [UInt8])] = []
        var answers: [@Sendable () -> Void] = []
        var nextRequest = 1
        var reads = 0
    }

    /// Token → caller: a page's token says who it is.
    let callers: [String: Caller]
    private let state: NIOLockedValueBox<State>

    init(seed: ModelSeed, callers: [String: Caller]) {
        self.callers = callers
        state = NIOLockedValueBox(State(server: ModelServer(restoring: seed.changes { "plain:" + $0 })))
    }

    var sockets: NoteSocketFactory {
        NoteSocketFactory { [unowned self] url, headers, _, onBuffer in
            InMemorySocket(hub: self, dial: .init(url: url, headers: headers), onBuffer: onBuffer)
        }
    }

    /// The page fetches answered so far.
    var reads: Int { state.withLockedValue { $0.reads } }

    /// What the server answers for `query` now, as a page shows it.
    func shown(_ query: ModelQuery, token: String) throws -> [String] {
        try state.withLockedValue { s in try s.server.answer(query, callers[token]!).shown.map(\.line) }
    }

    // MARK: Sockets

    func accept(_ socket: InMemorySocket) -> Bool {
        state.withLockedValue { s in
            let id = ClientID("\(socket.dial.parameter("whalesim-client") ?? "page").\(s.nextRequest)")
            s.nextRequest += 1
            s.sockets[ObjectIdentifier(socket)] = (id, socket)
            s.byId[id] = socket
            let caller = socket.dial.header("Authorization").flatMap { callers[$0] }
            let version: ProtocolVersion = socket.dial.parameter("protocol") == "2" ? .v2 : .original
            let pool = socket.dial.header("ObjectId") ?? ""
            route(s.server.handle(.joinPool(id, poolId: pool, caller: caller, protocolVersion: version)), in: &s)
            return true
        }
    }

    func enqueue(_ bytes: [UInt8], from socket: InMemorySocket) {}

    func ended(_ socket: InMemorySocket) {
        state.withLockedValue { s in
            guard let (id, _) = s.sockets.removeValue(forKey: ObjectIdentifier(socket)) else { return }
            s.byId[id] = nil
            s.down.removeAll { $0.socket === socket }
            _ = s.server.handle(.leavePool(id))
        }
    }

    /// Cuts every pool socket whose client name starts with `name`, as the network would.
    func cut(_ name: String) {
        let sockets = state.withLockedValue { s in s.byId.filter { $0.key.rawValue.hasPrefix(name) }.map(\.value) }
        for socket in sockets { socket.end("connection reset") }
    }

    /// Delivers pool updates, then page answers, in flight until none is left.
    func pump() {
        while true {
            let (answers, frames) = state.withLockedValue { s in
                defer { s.answers.removeAll(); s.down.removeAll() }
                return (s.answers, s.down)
            }
            if answers.isEmpty, frames.isEmpty { return }
            for (socket, bytes) in frames where !socket.isEnded { bytes.withUnsafeBytes { socket.onBuffer($0) } }
            for answer in answers { answer() }
        }
    }

    private func route(_ actions: [ModelServer.Action], in s: inout State) {
        for case .send(let to, let envelope) in actions {
            guard let socket = s.byId[to] else { continue }
            s.down.append((socket, Array(WireCodec.encode(envelope).utf8)))
        }
    }

    // MARK: GraphQL

    func fetchPage(
        accountID: String?, token: String, then: @escaping @Sendable (Result<PoolSnapshot, APIError>) -> Void
    ) {
        state.withLockedValue { s in
            s.reads += 1
            let query: ModelQuery = accountID.map { .accountPage(accountID: $0) } ?? .board
            let result: Result<PoolSnapshot, APIError>
            do { result = .success(try s.server.answer(query, callers[token]!)) } catch {
                result = .failure(Self.graphQLError(error))
            }
            s.answers.append { then(result) }
        }
    }

    func mutate(_ mutation: Mutation, senderID: String, token: String) async throws(APIError)
        -> WhalerAPI.AppliedMutation
    {
        let outcome = state.withLockedValue { s -> Result<WhalerAPI.AppliedMutation, APIError> in
            let requestId = "r\(s.nextRequest)"
            s.nextRequest += 1
            let actions = s.server.handle(
                .mutate(requestId: requestId, caller: callers[token]!, senderID: senderID, mutation))
            route(actions, in: &s)
            var written: [String] = []
            for case .persist(let changes) in actions {
                for case .record(let record) in changes { written.append(record.line) }
            }
            for case .reply(_, let result) in actions {
                return result.map { WhalerAPI.AppliedMutation(reply: $0, written: written.sorted()) }.mapError(
                    Self.graphQLError)
            }
            return .failure(APIError("graphql", "no reply"))
        }
        return try outcome.get()
    }

    /// A model refusal as the GraphQL answer carries it (`code: message`).
    static func graphQLError(_ error: any Error) -> APIError {
        APIError("graphql", (error as? ModelError)?.description ?? "\(error)")
    }

    // MARK: The app's reads and saves (what a server without whalesim's extensions answers)

    func login(email: String, password: String) async throws(APIError) -> WhalerAPI.Session {
        guard let (token, caller) = callers.first(where: { $0.value.userId == email }) else {
            throw APIError("login", "no \(email)")
        }
        return WhalerAPI.Session(accessToken: token, userId: caller.userId, organizationId: caller.organizationId)
    }

    /// The board's cards, as `accounts` answers them.
    func accounts(token: String) async throws(APIError) -> [WhalerAPI.AccountRow] {
        try rows(token: token)
    }

    /// An account page's contacts and open tasks, counted.
    func accountPage(_ accountId: String, token: String) async throws(APIError) -> (contacts: Int, tasks: Int) {
        let page = try answer(.accountPage(accountID: accountId), token: token)
        state.withLockedValue { $0.reads += 1 }
        return (page.contacts.count, page.tasks.count)
    }

    /// `saveAccounts` through the model server (its rules refuse a column that does not exist).
    func saveAccounts(_ inputs: [[String: Any]], senderID: String, token: String) async throws(APIError)
        -> [WhalerAPI.AccountRow]
    {
        let accounts = inputs.map(Self.accountInput)
        _ = try await mutate(.saveAccounts(accounts), senderID: senderID, token: token)
        let saved = Set(accounts.map(\.salesforceID))
        return try rows(token: token, counting: false).filter { saved.contains($0.salesforceID) }
    }

    /// `applyAccountTrackingChanges` through the model server.
    func track(_ inputs: [[String: Any]], tracked: Bool, token: String) async throws(APIError) {
        let changes = inputs.map {
            TrackingChange(account: Self.accountInput($0), newState: tracked ? .tracked : .untracked)
        }
        _ = try await mutate(.applyAccountTrackingChanges(changes), senderID: "plain", token: token)
    }

    private func rows(token: String, counting: Bool = true) throws(APIError) -> [WhalerAPI.AccountRow] {
        let board = try answer(.board, token: token)
        if counting { state.withLockedValue { $0.reads += 1 } }
        return board.accounts.map {
            WhalerAPI.AccountRow(id: $0.id, salesforceID: $0.salesforceID, name: $0.name, state: $0.state)
        }
    }

    private func answer(_ query: ModelQuery, token: String) throws(APIError) -> PoolSnapshot {
        guard let caller = callers[token] else { throw APIError("graphql", "unauthorized: unknown token") }
        let result = state.withLockedValue { s in Result { () throws(ModelError) in try s.server.answer(query, caller) }
        }
        return try result.mapError(Self.graphQLError).get()
    }

    /// The app's account input (a JSON object) as the model takes it.
    static func accountInput(_ o: [String: Any]) -> AccountInput {
        AccountInput(
            id: o["id"] as? String, salesforceID: o["salesforceID"] as? String ?? "", name: o["name"] as? String ?? "",
            state: o["state"] as? String)
    }
}
