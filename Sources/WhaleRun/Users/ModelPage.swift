import Foundation
import NIOConcurrencyHelpers
import WhaleLoad
import WhaleModel
import WhaleProtocol
import WhaleSim

/// One virtual user's model page (the board, or its account's page) on real connections: the
/// simulator's ``ModelClient`` state machine, fed by the page's pool socket and by GraphQL
/// answers, its actions carried out over GraphQL, and the simulator's model history events
/// recorded (`modelInvoke`, `modelApply`, `modelAck`, `modelFailed`), so the model checker
/// judges the live run as it judges a simulated one.
///
/// An account page listens on the user's note socket (its `ObjectId` is the account, the
/// page's pool): the ``NoteSession`` forwards joins, drops and `resourceUpdate`s. The board
/// listens to the organization's pool on a socket of its own, one socket per pool.
final class ModelPage: Redialing {
    struct Context: Sendable {
        /// The Whaler API's page fetches and mutations (GraphQL in a run, a ``ModelServer`` in a test).
        var network: any ModelNetworking
        var token: String
        var socketURL: String
        var protocolVersion: ProtocolVersion
        var recorder: LiveRecorder
        var metrics: LiveMetrics
        /// Where the board's pool socket comes from (real websockets in a run, memory in a test).
        var sockets: NoteSocketFactory = .live
    }

    struct State {
        var client: ModelClient
        var socket: (any NoteSocket)?
        var generation = 0
        var closing = false
        /// A reconnect is under way (one at a time: the socket manager, the user's loop, the run).
        var connecting = false
        /// GraphQL calls on their way (an answer still to feed in).
        var inFlight = 0
    }

    let index: Int
    /// True for the board: it opens its own pool socket (an account page shares the note's).
    let ownsSocket: Bool
    private let context: Context
    private let state: NIOLockedValueBox<State>

    init(index: Int, client: ModelClient, context: Context) {
        self.index = index
        ownsSocket = client.page == .board
        self.context = context
        state = NIOLockedValueBox(State(client: client))
    }

    var client: ModelClient { state.withLockedValue { $0.client } }
    var page: ModelClient.Page { state.withLockedValue { $0.client.page } }

    /// Joined, fetched, nothing pending or in flight.
    var isQuiet: Bool {
        state.withLockedValue { $0.client.isQuiet && $0.client.isJoined && $0.client.hasFetched && $0.inFlight == 0 }
    }
    /// The page's state, for the run's note when quiescence is not reached.
    var unquietReason: String {
        state.withLockedValue { s in
            let c = s.client
            return
                "model page (joined \(c.isJoined), fetched \(c.hasFetched), \(c.pending.count) pending, quiet \(c.isQuiet), \(s.inFlight) calls in flight, own socket \(ownsSocket ? (s.socket == nil ? "down" : "up") : "no"))"
        }
    }
    var isReady: Bool { state.withLockedValue { $0.client.isJoined && $0.client.hasFetched } }
    var needsReconnect: Bool { state.withLockedValue { ownsSocket && $0.socket == nil && !$0.closing } }

    func setFaults(_ faults: FaultSet) { state.withLockedValue { $0.client.faults = faults } }

    // MARK: The pool socket

    /// Opens the board's pool socket (the organization's pool); joined once the upgrade is done.
    func connect() async {
        guard ownsSocket else { return }
        let (generation, poolId) = state.withLockedValue { s -> (Int, String) in
            s.generation += 1
            return (s.generation, s.client.poolId)
        }
        let name = state.withLockedValue { $0.client.clientId.rawValue }
        var url = SocketURL.appending("whalesim-client=\(name)", to: context.socketURL)
        if context.protocolVersion == .v2 { url += "&protocol=2" }
        // On NIO's loops, as before the factory (the board's socket never went on the users' epoll loops).
        let socket = context.sockets.open(
            url: url, headers: [("ObjectId", poolId), ("Authorization", context.token)], loop: nil
        ) {
            [weak self] buffer in self?.receive(buffer, generation: generation)
        }
        state.withLockedValue { $0.socket = socket }
        context.metrics.attempt()
        if await socket.connected(timeout: .seconds(5)) {
            let current = state.withLockedValue { $0.generation == generation }
            if current { joined() }
        } else {
            context.metrics.connectFailed()
            state.withLockedValue { s in if s.generation == generation { s.socket = nil } }
        }
        socket.onEnded { [weak self] in self?.socketEnded(generation: generation) }
    }

    /// Opens the board's socket again if it is down and nobody is opening it already.
    func reconnectIfNeeded() async {
        let go = state.withLockedValue { s -> Bool in
            guard ownsSocket, s.socket == nil, !s.closing, !s.connecting else { return false }
            s.connecting = true
            return true
        }
        guard go else { return }
        await connect()
        state.withLockedValue { $0.connecting = false }
    }

    /// Drops the board's socket as the network would (the user's connection went); with
    /// `redialAfterMs`, the socket manager dials again after that long.
    func abandon(redialAfterMs: Int? = nil) {
        let socket = state.withLockedValue { s -> (any NoteSocket)? in
            guard ownsSocket, let socket = s.socket else { return nil }
            s.socket = nil
            s.generation += 1
            return socket
        }
        guard let socket else { return }
        disconnected()
        Task { await socket.close() }
        if let redialAfterMs { redial(after: redialAfterMs) }
    }

    func close() async {
        let socket = state.withLockedValue { s -> (any NoteSocket)? in
            s.closing = true
            return s.socket
        }
        await socket?.close()
    }

    private func socketEnded(generation: Int) {
        let (wasCurrent, closing) = state.withLockedValue { s -> (Bool, Bool) in
            guard s.generation == generation, s.socket != nil else { return (false, s.closing) }
            s.socket = nil
            return (true, s.closing)
        }
        if wasCurrent { disconnected() }
        if wasCurrent, !closing { redial(after: 100) }
    }

    /// One frame, valid only during the call.
    private func receive(_ bytes: UnsafeRawBufferPointer, generation: Int) {
        context.recorder.message()
        guard state.withLockedValue({ $0.generation == generation }) else { return }
        guard let envelope = try? WireCodec.decodeServer(buffer: bytes) else {
            context.metrics.error("client:undecodable")
            return
        }
        received(envelope)
    }

    // MARK: Events (from this page's socket or the note's)

    /// The page's pool joined (again): the page shows what its client holds (nothing on the
    /// first open, the records it had before on a reopen) and refreshes: cached, then fresh.
    func joined() {
        context.metrics.count("page_opens")
        handle(.joined)
    }
    func disconnected() { handle(.disconnected) }

    func received(_ envelope: ServerEnvelope) {
        guard envelope.isForTheModel else { return }
        handle(.received(envelope))
    }

    /// Makes the mutation the workload `action` draws from what the page shows; false when it
    /// does not apply here (the user idles instead).
    func act(
        _ action: ActionMix.Action, inputs: (ModelClient) -> ModelWorkload.Inputs, generator: TextGenerator,
        using rng: inout SimRandom
    ) -> Bool {
        send { client in
            ModelWorkload.mutation(action, on: client, inputs(client), generator: generator, using: &rng)
        }
    }

    /// Sends `mutation` the app's way (see ``send(_:)``).
    @discardableResult
    func submit(_ mutation: Mutation) -> Bool { send { _ in mutation } }

    /// The one way a page mutates: the mutation the user makes of what the page shows now
    /// (`make`, under the page's lock; nil: none applies) is shown at once in the page's view
    /// (the client's pending overlay) and dropped out of it if the server refuses (rollback).
    /// False before the page's first fetch, when there is nothing to make it of.
    private func send(_ make: (ModelClient) -> Mutation?) -> Bool {
        let actions = state.withLockedValue { s -> [ModelClient.Action]? in
            guard s.client.isJoined, s.client.hasFetched, let mutation = make(s.client) else { return nil }
            return s.client.mutate(mutation)
        }
        guard let actions else { return false }
        context.metrics.count("model_mutations")
        perform(actions)
        return true
    }

    private func handle(_ event: ModelClient.Event) {
        let actions = state.withLockedValue { $0.client.handle(event) }
        perform(actions)
    }

    /// Carries out the state machine's actions: GraphQL calls on their own tasks (their answers
    /// may overtake each other and the socket's updates, as in the app), history events in order.
    private func perform(_ actions: [ModelClient.Action]) {
        let name = state.withLockedValue { $0.client.clientId.rawValue }
        for action in actions {
            switch action {
            case .query(let requestId, let query):
                let accountID: String? = if case .accountPage(let id) = query { id } else { nil }
                state.withLockedValue { $0.inFlight += 1 }
                context.metrics.count("page_reads")
                context.network.fetchPage(accountID: accountID, token: context.token) { [self] result in
                    state.withLockedValue { $0.inFlight -= 1 }
                    handle(.answered(requestId: requestId, result.mapError { Self.modelError($0) }))
                }
            case .mutate(let requestId, let mutation):
                context.recorder.record(.modelInvoke(client: index, requestId: requestId, mutation: mutation.summary))
                context.metrics.attempt()
                state.withLockedValue { $0.inFlight += 1 }
                Task {
                    let result: Result<MutationReply, ModelError>
                    do {
                        let applied = try await context.network.mutate(mutation, senderID: name, token: context.token)
                        context.recorder.record(
                            .modelApply(
                                client: index, requestId: requestId, order: applied.reply.order,
                                records: applied.written))
                        result = .success(applied.reply)
                    } catch {
                        result = .failure(Self.modelError(error))
                    }
                    state.withLockedValue { $0.inFlight -= 1 }
                    handle(.replied(requestId: requestId, result))
                }
            case .acknowledged(let requestId, let order):
                context.metrics.count("model_acks")
                context.recorder.record(.modelAck(client: index, requestId: requestId, order: order))
            case .refused(let requestId, let error):
                context.metrics.count("model_refused")
                context.recorder.record(.modelFailed(client: index, requestId: requestId, code: error.code))
            case .failed(let message):
                context.metrics.error("model:failed")
                context.recorder.record(.error(client: index, code: "model", message: message))
            }
        }
    }

    /// A failed call as the model client takes it: the server's own refusal (its GraphQL error
    /// reads `code: message`) or, when the call did not get through, `unavailable`.
    static func modelError(_ error: any Error) -> ModelError {
        guard let error = error as? APIError else { return .unavailable("\(error)") }
        guard error.kind == "graphql" else { return .unavailable(error.description) }
        let code = error.message.split(separator: ":", maxSplits: 1).first.map(String.init) ?? ""
        switch code {
        case "unauthorized": return .unauthorized(error.message)
        case "forbidden": return .forbidden(error.message)
        case "notFound": return .notFound(error.message)
        case "badInput": return .badInput(error.message)
        default: return .badInput(error.message)
        }
    }

    /// The page as the user sees it and as the server answers it now (after quiescence).
    ///
    /// Only this fresh view is recorded for the model checker, never the cached view a reopened
    /// page shows before its fetch answers: the cache carries no pool `seq` the checker could
    /// place in the server's history (it is whatever the page last confirmed, from before the
    /// connection went), so judging it against the server's order would call every update made
    /// meanwhile lost. What the user does on a cached view is judged all the same: each mutation
    /// is recorded when sent and when answered, and its outcome must be in the final state.
    func recordFinal(serverRecords: [String]?) {
        let (page, view, pending) = state.withLockedValue { s in
            (s.client.page.name, s.client.view.map(\.line), s.client.pending.count)
        }
        context.recorder.record(.modelClientFinal(client: index, page: page, records: view, pending: pending))
        if let serverRecords {
            context.recorder.record(.modelServerFinal(client: index, page: page, records: serverRecords))
        }
    }
}
