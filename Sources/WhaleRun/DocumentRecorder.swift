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
/// baseline: a note may have a history from earlier runs); after losing its socket it resyncs
/// from the last revision it saw (a protocol-2 resync), so nothing in between is missed.
final class DocumentRecorder: Sendable {
    struct State {
        var revision = 0
        var text = TextDocument()
        var socket: LeanSocket?
        var joined = false
        /// Set by the first join's answer: the note's revision and text when the run began.
        var hasBaseline = false
        var closing = false
        var gaps: [String] = []
        var generation = 0
        var lastMessageMs = 0
    }

    let document: Int
    let resourceId: String
    private let socketURL: String
    private let token: String
    private let recorder: LiveRecorder
    private let ops: OpRegistry
    /// Client id → history index, for cursors.
    private let clients: NIOLockedValueBox<[String: Int]>
    private let state: NIOLockedValueBox<State>

    /// `fromRevisionZero`: a shard of a sharded run takes the note's whole history instead of a
    /// baseline. The shards start one by one against a fresh server, so a shard that joins after
    /// another's clients began typing would otherwise start its axis at a later revision, and
    /// `whalesim merge` could not put the shards on one axis.
    init(document: Int, resourceId: String, socketURL: String, token: String, recorder: LiveRecorder, ops: OpRegistry,
         clients: NIOLockedValueBox<[String: Int]>, fromRevisionZero: Bool = false) {
        state = NIOLockedValueBox(State(hasBaseline: fromRevisionZero))
        self.document = document
        self.resourceId = resourceId
        self.socketURL = socketURL
        self.token = token
        self.recorder = recorder
        self.ops = ops
        self.clients = clients
    }

    var revision: Int { state.withLockedValue { $0.revision } }
    var text: String { state.withLockedValue { $0.text.text } }
    var isJoined: Bool { state.withLockedValue { $0.joined } }
    var lastMessageMs: Int { state.withLockedValue { $0.lastMessageMs } }
    var gaps: [String] { state.withLockedValue { $0.gaps } }

    /// Connects (again) and resyncs; false if the socket could not open.
    @discardableResult
    func connect() async -> Bool {
        let generation = state.withLockedValue { s -> Int in
            s.generation += 1
            s.joined = false
            return s.generation
        }
        let url = SocketURL.appending("protocol=2&whalesim-client=recorder-\(document)", to: socketURL)
        let socket = LeanSocket(url: url, headers: [("ObjectId", resourceId), ("Authorization", token)]) { [weak self] text in
            self?.receive(text, generation: generation)
        }
        state.withLockedValue { $0.socket = socket }
        guard await socket.connected() else {
            state.withLockedValue { if $0.generation == generation { $0.socket = nil } }
            return false
        }
        let from = state.withLockedValue { $0.hasBaseline ? $0.revision : nil }
        let join = ClientEnvelope(messageId: "rec-\(document)-\(generation)", message: .resourceConnection(resourceId: resourceId, revision: from))
        socket.send(WireCodec.encode(join))
        Task { [weak self] in
            await socket.waitEnded()
            self?.state.withLockedValue { s in
                if s.generation == generation { s.socket = nil; s.joined = false }
            }
        }
        return true
    }

    var needsReconnect: Bool { state.withLockedValue { $0.socket == nil && !$0.closing } }

    func close() async {
        let socket = state.withLockedValue { s -> LeanSocket? in s.closing = true; return s.socket }
        await socket?.close()
    }

    private func receive(_ frame: String, generation: Int) {
        guard let envelope = try? WireCodec.decodeServer(Array(frame.utf8)) else { return }
        let now = recorder.clock.nowMs
        state.withLockedValue { s in
            guard s.generation == generation else { return }
            s.lastMessageMs = now
            switch envelope.message {
            case .resourceConnectionConf(let conf) where !s.hasBaseline:
                s.hasBaseline = true
                s.revision = conf.revision
                s.text = TextDocument(conf.initialState ?? "")
                recorder.setBaseline(document: document, revision: conf.revision, text: s.text.text)
                s.joined = true
            case .resourceConnectionConf(let conf):
                if let missed = conf.missedOps {
                    for m in missed { apply(m.op, opId: m.opId, messageId: nil, in: &s) }
                } else if conf.revision != s.revision || conf.initialState != s.text.text {
                    // The server did not know our revision: ops in between are unknown.
                    s.gaps.append("\(recorder.documentNames[document]): the server answered a resync from revision \(s.revision) with its full state at revision \(conf.revision)")
                    recorder.record(.serverRevision(document: document, from: s.revision, to: conf.revision, cause: "recorder resync gap"))
                    s.revision = conf.revision
                    s.text = TextDocument(conf.initialState ?? "")
                }
                s.joined = true
            case .docChangeReturnOps(_, let op, let opId, _):
                apply(op, opId: opId, messageId: envelope.messageId, in: &s)
            case .cursorUpdate(let cursor):
                if let c = clients.withLockedValue({ $0[cursor.clientId.rawValue] }) {
                    recorder.record(.cursorDelivered(client: c, revision: cursor.rev, selection: cursor.selection))
                }
            default:
                break
            }
        }
    }

    private func apply(_ op: WhaleOT.Operation, opId: String?, messageId: String?, in s: inout State) {
        let id = messageId.flatMap { ops.opId(messageId: $0, opId: opId) } ?? opId ?? "unattributed-r\(s.revision + 1)"
        let author = ops.op(id)?.client ?? -1
        do throws(OTError) {
            try s.text.apply(op)
        } catch {
            s.gaps.append("\(recorder.documentNames[document]): broadcast op \(id) does not apply at revision \(s.revision): \(error)")
        }
        s.revision += 1
        recorder.record(.serverApply(document: document, client: max(author, 0), opId: id, op: op, revision: s.revision))
    }
}
