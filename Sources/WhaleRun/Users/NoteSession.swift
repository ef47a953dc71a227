import Foundation
import NIOConcurrencyHelpers
import WhaleLoad
import WhaleOT
import WhaleProtocol
import WhaleSim

/// One virtual client's view of one account note over a real websocket: the same
/// ``ClientSession`` the simulator drives, recording the same history events the simulator
/// records (under the session's lock, so the history has the session's order) and measuring
/// op→ack and op→remote-apply. A broken socket is noticed (closed by the peer, or no ack for
/// `staleAfterMs` on a half-open connection) and the session reconnects with backoff, resyncing
/// from its revision (protocol 2) or losing unacknowledged edits (the original, a finding).
final class NoteSession: Redialing {
    /// `WHALESIM_CONNECT_LOG=1`: each failed dial is printed with how long it took and why
    /// (what tells a refused connection from an upgrade that never came).
    static let logsFailedConnects = ProcessInfo.processInfo.environment["WHALESIM_CONNECT_LOG"] == "1"

    struct Context: Sendable {
        var socketURL: String
        var token: String
        var protocolVersion: ProtocolVersion
        var recorder: LiveRecorder
        var metrics: LiveMetrics
        var ops: OpRegistry
        var faults: FaultSet
        /// An op unacknowledged this long makes the client ask whether the connection is alive
        /// (a ping); no pong `probeWaitMs` later means it is dead (half-open): reconnect.
        var staleAfterMs = 4_000
        /// How long a pong may take before the connection is taken for half-open.
        var probeWaitMs = 2_000
        /// Connection id → history index, shared with the recorders (cursor attribution).
        var connections: NIOLockedValueBox<[String: Int]>
        /// Tags the ids this client gives the server (op ids, connection ids), so a second run
        /// against a server that keeps its notes never reuses an op id the server already
        /// applied: the server would acknowledge it again instead of applying it (idempotent
        /// resends, PROTOCOL.md §3).
        var runTag = ""
        /// The loop this client's socket, pauses and task run on (`live.runner-loop: epoll`);
        /// nil: NIO's loops (a ``LeanSocket``).
        var loop: EpollClientLoop?
        /// Where the note socket comes from (real websockets in a run, memory in a test).
        var sockets: NoteSocketFactory = .live
    }

    struct State {
        var session: ClientSession
        var socket: (any NoteSocket)?
        var generation = 0
        var closing = false
        /// A reconnect is under way (one at a time, whoever asks: the socket manager, the user, the run).
        var connecting = false
        var oldestPendingSinceMs: Int?
        var connectStartedUs: Int64?
        /// A ping sent because an ack is late: when, and the socket's pong count then.
        var probe: (sentMs: Int, pongs: Int)?
        var reconnects = 0
        /// The id this connection proposes to the server (`?clientId=`): the client's name and
        /// the run's tag (`c001.mk3x9`), then `c001.mk3x9.2`, `.3`... after reconnects, so a half-open old connection the server still
        /// holds never takes the new one's id, and cursors are attributed per connection.
        var connectionId: String
        /// When the user meant to make the edit being handled (its planned time, for latencies
        /// measured without coordinated omission); nil: now.
        var intendedUs: Int64?
    }

    let index: Int
    /// The client's name in the run's history and reports (`c001`).
    let clientId: ClientID
    /// The id its session and connections use with the server: the name tagged with the run.
    let serverId: ClientID
    let document: Int
    let resourceId: String
    /// The user's account page, when it listens on this socket (the note's pool is its account's).
    let model: ModelPage?
    let context: Context
    /// The session and its socket, under one lock (the history takes the session's order).
    let state: NIOLockedValueBox<State>

    init(
        index: Int, clientId: ClientID, userId: String, resourceId: String, document: Int, context: Context,
        model: ModelPage? = nil
    ) {
        self.index = index
        self.model = model
        self.clientId = clientId
        let serverId = context.runTag.isEmpty ? clientId : ClientID("\(clientId.rawValue).\(context.runTag)")
        self.serverId = serverId
        self.document = document
        self.resourceId = resourceId
        self.context = context
        state = NIOLockedValueBox(
            State(
                session: ClientSession(
                    clientId: serverId, userId: userId, resourceId: resourceId,
                    configuration: .init(protocolVersion: context.protocolVersion, faults: context.faults)),
                connectionId: serverId.rawValue))
    }

    var session: ClientSession { state.withLockedValue { $0.session } }
    var clientLoop: EpollClientLoop? { context.loop }

    /// Switches catalog faults in this client's session (a fault window opening or closing).
    func setFaults(_ faults: FaultSet) { state.withLockedValue { $0.session.faults = faults } }
    var isJoined: Bool { state.withLockedValue { $0.session.connection == .joined } }
    /// The session's revision (no copy of the session: the convergence watch reads it every 10 ms).
    var revision: Int { state.withLockedValue { $0.session.revision } }
    /// What the connection is doing, for a note about a client that has not come back.
    var connectionSummary: String {
        state.withLockedValue { s in
            let socket = s.socket == nil ? (s.connecting ? "dialing" : "no socket") : "socket open"
            return "\(socket), \(s.session.connection), dial \(s.generation), connection \(s.connectionId)"
        }
    }
    /// How many times a connection was opened or dropped (a change: the note came back on a new one).
    var dials: Int { state.withLockedValue { $0.generation } }
    var isSynchronized: Bool {
        state.withLockedValue { $0.session.connection == .joined && $0.session.syncState == .synchronized }
    }

    /// Opens a socket and joins (or resyncs). Returns once the upgrade is done or failed.
    func connect() async {
        let (url, generation, _) = state.withLockedValue { s -> (String, Int, String) in
            s.generation += 1
            s.connectStartedUs = context.metrics.clock.nowUs
            s.connectionId = s.generation == 1 ? serverId.rawValue : "\(serverId.rawValue).\(s.generation)"
            var url = SocketURL.appending("whalesim-client=\(clientId.rawValue)", to: context.socketURL)
            if context.protocolVersion == .v2 { url += "&protocol=2&clientId=\(s.connectionId)" }
            return (url, s.generation, s.connectionId)
        }
        // Every connection of this client is `serverId` or `serverId.N`: the id alone is registered.
        context.connections.withLockedValue { $0[serverId.rawValue] = index }
        let headers = [("ObjectId", resourceId), ("Authorization", context.token)]
        // On the epoll loop each frame is decoded where it lies in the loop's read buffer (no array made of it).
        // `self` is held strongly: a weak reference loaded once a frame was 2% of the runner's CPU. The
        // socket lets go of this closure when it ends, and this session of the socket (`socketEnded`).
        let socket = context.sockets.open(url: url, headers: headers, loop: context.loop) { buffer in
            self.receive(buffer, generation: generation)
        }
        state.withLockedValue { $0.socket = socket }
        context.metrics.attempt()
        if await socket.connected(timeout: .seconds(5)) {
            state.withLockedValue { s in
                guard s.generation == generation else { return }
                context.recorder.record(.connect(client: index))
                context.metrics.connectedDelta(1)
                handle(.connected, in: &s)
            }
            if state.withLockedValue({ $0.generation == generation }) { model?.joined() }
        } else {
            if Self.logsFailedConnects {
                let ms =
                    state.withLockedValue { s in s.connectStartedUs.map { (context.metrics.clock.nowUs - $0) / 1000 } }
                    ?? -1
                let why = socket.ending.map { $0.error ?? "closed \($0.closeCode ?? 0) \($0.reason ?? "")" } ?? "?"
                FileHandle.standardError.write(
                    Data(
                        "connect failed: \(clientId.rawValue) at \(context.metrics.clock.nowMs) ms after \(ms) ms: \(why)\n"
                            .utf8))
            }
            context.metrics.connectFailed()
            state.withLockedValue { s in
                if s.generation == generation { s.socket = nil }
            }
        }
        socket.onEnded { [weak self] in self?.socketEnded(generation: generation, ending: socket.ending) }
    }

    /// Opens a new socket if this one is down and nobody else is already opening one. The
    /// socket manager, the user's loop and the run's quiescence check all reconnect through here.
    func reconnectIfNeeded() async {
        let go = state.withLockedValue { s -> Bool in
            guard s.socket == nil, !s.closing, !s.connecting else { return false }
            s.connecting = true
            return true
        }
        guard go else { return }
        await connect()
        state.withLockedValue { $0.connecting = false }
    }

    /// Closes the socket on purpose (end of run) and waits for it.
    func close() async {
        let socket = state.withLockedValue { s -> (any NoteSocket)? in
            s.closing = true
            return s.socket
        }
        await socket?.close()
    }

    /// Drops the connection as the network would; the socket manager dials again after
    /// `redialAfterMs` (a nemesis's outage), or the user's loop notices at its next action.
    func abandon(cause: String, redialAfterMs: Int? = nil) {
        let socket = state.withLockedValue { s -> (any NoteSocket)? in
            guard let socket = s.socket else { return nil }
            s.socket = nil
            s.generation += 1
            noteDisconnect(cause: cause, in: &s)
            return socket
        }
        if let socket { Task { await socket.close() } }
        if socket != nil, let redialAfterMs { redial(after: redialAfterMs) }
    }

    var needsReconnect: Bool { state.withLockedValue { $0.socket == nil && !$0.closing } }

    /// Why the connection is taken for half-open, or nil while it is not: the join unanswered
    /// `staleAfterMs` after the upgrade's own 5 s allowance (a socket that went half-open between
    /// its upgrade and its join has no op pending and would otherwise wait forever), or an op
    /// unacknowledged for `staleAfterMs` and a ping then unanswered for `probeWaitMs`.
    ///
    /// A late ack alone is not enough: a busy server (or a runner that was itself stalled, whose
    /// loop may wake before its socket has read the ack that came meanwhile) answers late but
    /// answers, and dropping it costs a reconnect and a resync for nothing. A half-open
    /// connection answers nothing, not even a ping. A pong resets the wait, so a server that
    /// pongs but never acks keeps its client, and the run's liveness checker names the op.
    func halfOpenCause(nowMs: Int) -> String? {
        let (cause, ping) = state.withLockedValue { s -> (String?, (any NoteSocket)?) in
            guard let socket = s.socket else { return (nil, nil) }
            if let started = s.connectStartedUs,
                context.metrics.clock.nowUs - started > Int64(5_000 + context.staleAfterMs) * 1000
            {
                return ("no join answer within \(5_000 + context.staleAfterMs) ms (half-open?)", nil)
            }
            guard let since = s.oldestPendingSinceMs, nowMs - since > context.staleAfterMs else {
                s.probe = nil; return (nil, nil)
            }
            let pongs = socket.pongsReceived
            guard let probe = s.probe else {
                s.probe = (nowMs, pongs)
                return (nil, socket)
            }
            if pongs != probe.pongs {
                // Alive, only slow: wait for the ack afresh.
                s.probe = nil
                s.oldestPendingSinceMs = nowMs
                return (nil, nil)
            }
            guard nowMs - probe.sentMs > context.probeWaitMs else { return (nil, nil) }
            return (
                "no ack within \(context.staleAfterMs) ms and no pong within \(context.probeWaitMs) ms (half-open?)",
                nil
            )
        }
        ping?.ping()
        return cause
    }

    private func socketEnded(generation: Int, ending: LiveSocket.Ending?) {
        let lost = state.withLockedValue { s -> Bool in
            guard s.generation == generation, s.socket != nil else { return false }
            s.socket = nil
            let cause = ending.map { e in e.closeCode.map { "closed \($0)" } ?? e.error ?? "ended" } ?? "ended"
            if !s.closing { context.metrics.error("disconnect", rated: false) }
            noteDisconnect(cause: cause, in: &s)
            return !s.closing
        }
        if lost { redial(after: 100) }
    }

    private func noteDisconnect(cause: String, in s: inout State) {
        context.ops.crossedDrop([s.session.outstanding?.opId, s.session.buffer?.opId].compactMap { $0 })
        let wasConnected = s.session.connection != .disconnected
        if wasConnected {
            context.recorder.record(.disconnect(client: index, cause: cause))
            context.metrics.connectedDelta(-1)
        }
        handle(.disconnected, in: &s)
        s.oldestPendingSinceMs = nil
        s.probe = nil
        // Under this session's lock; the page takes its own lock and never this one.
        model?.disconnected()
    }

    /// A local edit at scalar offsets, clamped into the note; recorded as the user's intent first.
    /// `intendedUs`: when the user's schedule meant it to happen (its latencies count from there).
    func edit(position: Int, deleting: Int, inserting: String, intendedUs: Int64? = nil) {
        state.withLockedValue { s in
            s.intendedUs = intendedUs
            defer { s.intendedUs = nil }
            guard s.session.hasJoined else { return }
            let n = s.session.document.count
            let at = min(max(0, position), n)
            let del = min(max(0, deleting), n - at)
            guard del > 0 || !inserting.isEmpty else { return }
            context.recorder.record(.edit(client: index, position: at, deleted: del, inserted: inserting))
            handle(.localEdit(position: at, deleting: del, inserting: inserting), in: &s)
        }
    }

    func select(_ selection: Selection, record: Bool = false) {
        state.withLockedValue { s in
            guard s.session.hasJoined else { return }
            let n = s.session.document.count
            let clamped = Selection(anchor: min(selection.anchor, n), head: min(selection.head, n))
            handle(.localSelection(clamped), in: &s)
            if record {
                context.recorder.record(
                    .selectionSet(client: index, revision: s.session.revision, selection: s.session.selection))
            }
        }
    }

    /// The id the server knows this client's current connection by.
    var connectionId: String { state.withLockedValue { $0.connectionId } }
}
