import Foundation
import NIOConcurrencyHelpers
import WhaleLoad
import WhaleOT
import WhaleProtocol
import WhaleSim

/// A silent member of one note that writes down the server's history as the server broadcasts
/// it (each op in server order with its author, every cursor the server forwards), so the
/// checkers see `serverApply` and `cursorDelivered` events from any server, the team's own
/// included. Its first join takes the note as it is (its revision and text are the run's
/// baseline: a note may have a history from earlier runs); after losing its socket it redials
/// at once, during the load as after it, and resyncs from the last revision it saw (a
/// protocol-2 resync), so nothing in between is missed.
///
/// The observer must never be the weak link: a socket that dies without a close (half-open:
/// no FIN, no RST, nothing more) is found by ``watch(nowMs:)``, which pings a quiet socket and
/// drops one that answers nothing, or whose join goes unanswered, and dials again. What it
/// still misses is written down as an `observation` gap, never as the server's doing; the run
/// fills gaps from the server's own account after quiescence (``History/reconciled``).
///
/// With `visitEveryMs` (`live.recorder-visits`) it is no standing member: it joins, takes what
/// it missed (the ops of a protocol-2 resync), leaves, and comes back after that long, so a note
/// whose clients all left is empty on the server, as it would be without whalesim watching
/// (`revision-reset-on-empty`). A note the server emptied and reset answers the next visit's
/// resync with its full state at a lower revision, which the recorder writes down as the server
/// going back (`serverRevision`): the observer does not hide the reset, it sees it later.
final class DocumentRecorder: Redialing {
    struct State {
        var revision = 0
        var text = TextDocument()
        var socket: (any NoteSocket)?
        var joined = false
        /// Set by the first join's answer: the note's revision and text when the run began.
        var hasBaseline = false
        var closing = false
        var connecting = false
        var gaps: [String] = []
        var generation = 0
        var lastMessageMs = 0
        /// When the current socket's join was sent (nil once answered).
        var joinSentMs: Int?
        /// The pongs counted at the last watch, and when the socket was last heard (frame or pong).
        var pongsSeen = 0
        var lastHeardMs = 0
        /// The ping sent and not yet answered (by its pong or any frame).
        var pingSentMs: Int?
        /// Connections dropped by the watchdog (half-open sockets found), for the run's notes.
        var staleDrops = 0
        /// Test hook: stop taking frames at this run time (a stalled observer).
        var stallAtMs: Int?
        /// Joins the server answered (a visiting recorder is not joined between its visits).
        var answeredJoins = 0
    }

    /// A visiting recorder's pause between visits; nil: a standing member.
    let visitEveryMs: Int?

    let document: Int
    let resourceId: String
    private let socketURL: String
    private let token: String
    private let recorder: LiveRecorder
    private let ops: OpRegistry
    /// Client id → history index, for cursors.
    private let clients: NIOLockedValueBox<[String: Int]>
    private let state: NIOLockedValueBox<State>
    /// A quiet socket is pinged after this long; a ping or a join unanswered for `deadAfterMs`
    /// (less the ping's wait) drops it.
    static let pingAfterMs = 1_000
    static let deadAfterMs = 5_000

    var index: Int { document }

    /// `fromRevisionZero`: a shard of a sharded run takes the note's whole history instead of a
    /// baseline. The shards start one by one against a fresh server, so a shard that joins after
    /// another's clients began typing would otherwise start its axis at a later revision, and
    /// `whalesim merge` could not put the shards on one axis.
    init(
        document: Int, resourceId: String, socketURL: String, token: String, recorder: LiveRecorder, ops: OpRegistry,
        clients: NIOLockedValueBox<[String: Int]>, fromRevisionZero: Bool = false, stallAtMs: Int? = nil,
        visitEveryMs: Int? = nil,
        loop: EpollClientLoop? = nil
    ) {
        self.visitEveryMs = visitEveryMs
        clientLoop = loop
        state = NIOLockedValueBox(State(hasBaseline: fromRevisionZero, stallAtMs: stallAtMs))
        self.document = document
        self.resourceId = resourceId
        self.socketURL = socketURL
        self.token = token
        self.recorder = recorder
        self.ops = ops
        self.clients = clients
    }

    /// The loop its socket and redials run on (`live.runner-loop: epoll`); nil: NIO's.
    let clientLoop: EpollClientLoop?
    var revision: Int { state.withLockedValue { $0.revision } }
    var text: String { state.withLockedValue { $0.text.text } }
    var isJoined: Bool { state.withLockedValue { $0.joined } }
    /// Whether the server has answered a join (the note's baseline is known).
    var hasAnsweredAJoin: Bool { state.withLockedValue { $0.answeredJoins > 0 } }
    var lastMessageMs: Int { state.withLockedValue { $0.lastMessageMs } }
    var gaps: [String] { state.withLockedValue { $0.gaps } }
    var staleDrops: Int { state.withLockedValue { $0.staleDrops } }
    /// The note's revision when the run began (its first join), once known.
    var baseline: Int? { state.withLockedValue { $0.hasBaseline ? recorder.baselines[document].revision : nil } }

    /// Connects (again) and resyncs; false if the socket could not open.
    @discardableResult
    func connect() async -> Bool {
        let generation = state.withLockedValue { s -> Int in
            s.generation += 1
            s.joined = false
            return s.generation
        }
        let url = SocketURL.appending("protocol=2&whalesim-client=recorder-\(document)", to: socketURL)
        let headers = [("ObjectId", resourceId), ("Authorization", token)]
        // On the users' loop when they have one of their own (live.runner-loop: epoll): the
        // server sends the recorder each op as it sends the clients theirs, so one wake-up reads both.
        let socket = openNoteSocket(url: url, headers: headers, maxFrameSize: 1 << 26, loop: clientLoop) {
            [weak self] buffer in
            self?.receive(buffer, generation: generation)
        }
        state.withLockedValue { $0.socket = socket }
        socket.onEnded { [weak self] in self?.socketEnded(generation: generation) }
        guard await socket.connected(timeout: .seconds(5)) else {
            state.withLockedValue { if $0.generation == generation { $0.socket = nil } }
            return false
        }
        let now = recorder.clock.nowMs
        let from = state.withLockedValue { s -> Int? in
            s.joinSentMs = now
            s.pingSentMs = nil
            s.lastHeardMs = now
            s.pongsSeen = socket.pongsReceived
            return s.hasBaseline ? s.revision : nil
        }
        let join = ClientEnvelope(
            messageId: "rec-\(document)-\(generation)",
            message: .resourceConnection(resourceId: resourceId, revision: from))
        socket.send(WireCodec.encode(join), binary: false)
        return true
    }

    /// Opens a new socket unless one is open, being opened, or the run is closing.
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

    private func socketEnded(generation: Int) {
        let lost = state.withLockedValue { s -> Bool in
            guard s.generation == generation, s.socket != nil else { return false }
            s.socket = nil
            s.joined = false
            return !s.closing
        }
        if lost { redial(after: 50) }
    }

    var needsReconnect: Bool { state.withLockedValue { $0.socket == nil && !$0.closing } }

    /// The history index of the client whose connection is `connectionId`: a client's first
    /// connection uses its id, and each redial `ID.N` (``NoteSession``), so only the id is
    /// registered and a redial's suffix is taken off here (registering every connection grew
    /// the map by one entry a dial, some 2,000 a restart, for the whole run: issue 21).
    static func clientIndex(of connectionId: String, in ids: [String: Int]) -> Int? {
        if let c = ids[connectionId] { return c }
        guard let dot = connectionId.lastIndex(of: ".") else { return nil }
        let redial = connectionId[connectionId.index(after: dot)...]
        guard !redial.isEmpty, redial.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return ids[String(connectionId[..<dot])]
    }

    /// The watchdog, called every few hundred ms by the run: a join unanswered for
    /// `deadAfterMs`, or a joined socket that has been silent that long and answered no ping, is
    /// half-open: drop it and dial again. A socket quiet for `pingAfterMs` is pinged.
    func watch(nowMs: Int) {
        let (dead, ping) = state.withLockedValue { s -> ((any NoteSocket)?, (any NoteSocket)?) in
            guard let socket = s.socket, !s.closing else { return (nil, nil) }
            let pongs = socket.pongsReceived
            if pongs != s.pongsSeen { s.pongsSeen = pongs; s.lastHeardMs = max(s.lastHeardMs, nowMs) }
            if let sent = s.pingSentMs, s.lastHeardMs >= sent { s.pingSentMs = nil }
            // Dead: a join, or a ping, unanswered for the dead time (a quiet note alone is not
            // silence: only what was asked and not answered counts, however often this is called).
            let joinUnanswered = s.joinSentMs.map { nowMs - $0 > Self.deadAfterMs } ?? false
            let silent = s.pingSentMs.map { nowMs - $0 > Self.deadAfterMs - Self.pingAfterMs } ?? false
            if joinUnanswered || silent {
                s.staleDrops += 1
                s.socket = nil
                s.joined = false
                s.pingSentMs = nil
                s.generation += 1
                return (socket, nil)
            }
            if s.joinSentMs == nil, s.joined, s.pingSentMs == nil, nowMs - s.lastHeardMs > Self.pingAfterMs {
                s.pingSentMs = nowMs
                return (nil, socket)
            }
            return (nil, nil)
        }
        ping?.ping()
        if let dead {
            Task { await dead.close() }
            redial(after: 0)
        }
    }

    func close() async {
        let socket = state.withLockedValue { s -> (any NoteSocket)? in
            s.closing = true; return s.socket
        }
        await socket?.close()
    }

    /// Bytes, not a String: every op of the note passes here, and the decoder reads bytes anyway
    /// (a String is made only to be taken apart again).
    /// One frame, valid only during the call.
    private func receive(_ frame: UnsafeRawBufferPointer, generation: Int) {
        guard let envelope = try? WireCodec.decodeServer(buffer: frame) else { return }
        let now = recorder.clock.nowMs
        let leaving = state.withLockedValue { s -> (any NoteSocket)? in
            guard s.generation == generation else { return nil }
            if let stall = s.stallAtMs, now >= stall { return nil }
            s.lastMessageMs = now
            s.lastHeardMs = now
            switch envelope.message {
            case .resourceConnectionConf(let conf) where !s.hasBaseline:
                s.hasBaseline = true
                s.revision = conf.revision
                s.text = TextDocument(conf.initialState ?? "")
                recorder.setBaseline(document: document, revision: conf.revision, text: s.text.text)
                s.joined = true
                s.joinSentMs = nil
            case .resourceConnectionConf(let conf):
                if let missed = conf.missedOps {
                    for m in missed { apply(m.op, opId: m.opId, messageId: nil, in: &s) }
                } else if conf.revision < s.revision {
                    // The server no longer has revisions it broadcast: it went back (a lost commit).
                    recorder.record(
                        .serverRevision(
                            document: document, from: s.revision, to: conf.revision,
                            cause:
                                "the server answered the recorder's resync from revision \(s.revision) with its full state at revision \(conf.revision)"
                        ))
                    s.revision = conf.revision
                    s.text = TextDocument(conf.initialState ?? "")
                } else if conf.revision != s.revision || conf.initialState != s.text.text {
                    // The server did not send the ops in between (no protocol-2 resync): what they were is
                    // unknown to this observer, not the server's fault.
                    let why =
                        "the server answered a resync from revision \(s.revision) with its full state at revision \(conf.revision)"
                    s.gaps.append("\(recorder.documentNames[document]): \(why)")
                    recorder.record(
                        .observation(
                            document: document, from: s.revision, to: max(conf.revision, s.revision), kind: .gap,
                            detail: why))
                    s.revision = conf.revision
                    s.text = TextDocument(conf.initialState ?? "")
                }
                s.joined = true
                s.joinSentMs = nil
            case .docChangeReturnOps(_, let op, let opId, _):
                apply(op, opId: opId, messageId: envelope.messageId, in: &s)
            case .cursorUpdate(let cursor):
                if let c = clients.withLockedValue({ Self.clientIndex(of: cursor.clientId.rawValue, in: $0) }) {
                    recorder.record(.cursorDelivered(client: c, revision: cursor.rev, selection: cursor.selection))
                }
            default:
                break
            }
            guard case .resourceConnectionConf = envelope.message else { return nil }
            s.answeredJoins += 1
            // A visit ends once its resync is answered: the socket goes (a new generation, so its
            // end is no loss to redial after), and the next visit is dialed after the pause.
            guard visitEveryMs != nil, !s.closing, let socket = s.socket else { return nil }
            s.socket = nil
            s.joined = false
            s.generation += 1
            return socket
        }
        if let leaving, let every = visitEveryMs {
            Task { await leaving.close() }
            redial(after: every)
        }
    }

    private func apply(_ op: WhaleOT.Operation, opId: String?, messageId: String?, in s: inout State) {
        let id = messageId.flatMap { ops.opId(messageId: $0, opId: opId) } ?? opId ?? "unattributed-r\(s.revision + 1)"
        let author = ops.op(id)?.client ?? -1
        do throws(OTError) {
            try s.text.apply(op)
        } catch {
            s.gaps.append(
                "\(recorder.documentNames[document]): broadcast op \(id) does not apply at revision \(s.revision): \(error)"
            )
        }
        s.revision += 1
        recorder.record(
            .serverApply(document: document, client: max(author, 0), opId: id, op: op, revision: s.revision))
    }
}
