import WhaleOT
import WhaleProtocol

extension WireFuzzCase {
    static let events = 20

    /// What refused input must not touch on the server: each document's text, history and op ids.
    struct DocumentState: Equatable {
        var text: String
        var history: [Operation]
        var opIds: [String?]
    }

    static func documentStates(_ server: CollabServer) -> [String: DocumentState] {
        server.documents.mapValues { DocumentState(text: $0.text, history: $0.history, opIds: $0.opIds) }
    }

    mutating func serverSession(_ report: inout WireFuzz.Report) {
        var server = CollabServer(configuration: .init(initialTexts: ["doc": text(10)]))
        let clients: [ClientID] = ["c0", "c1", "c2"]
        var connected: Set<ClientID> = []
        for step in 0..<Self.events {
            let client = pick(clients)
            let event: CollabServer.Event
            if !connected.contains(client) || rng.chance(0.05) {
                event = .connected(client, userId: "u\(below(2))", protocolVersion: rng.chance(0.5) ? .v2 : .original)
                connected.insert(client)
            } else if rng.chance(0.05) {
                event = .disconnected(client)
                connected.remove(client)
            } else if rng.chance(0.05) {
                event = .backpressure(client, slow: rng.chance(0.5))
            } else {
                let document = server.documents["doc"]
                let valid = clientEnvelope(
                    resourceId: "doc", revision: document?.revision ?? 0, length: document?.document.count ?? 0)
                if rng.chance(0.3),
                    let mutated = try? WireCodec.decodeClient(mutate(Array(WireCodec.encode(valid).utf8)))
                {
                    event = .received(client, mutated)
                } else {
                    event = .received(client, valid)
                }
            }
            let before = Self.documentStates(server)
            let actions = server.handle(event)
            report.serverEvents += 1
            var appliedTo: [String: Int] = [:]
            var refusedSender = false
            for action in actions {
                switch action {
                case .applied(let resourceId, _, _, _, _): appliedTo[resourceId, default: 0] += 1
                case .send(let to, let envelope):
                    if case .error = envelope.message, case .received(let from, _) = event, to == from {
                        refusedSender = true
                    }
                case .persist: break
                }
            }
            if refusedSender { report.refusals += 1 }
            if refusedSender && !appliedTo.isEmpty {
                report.findings.append(
                    .init(
                        index: index, problem: "step \(step): an error was sent for \(event) and yet an op was applied")
                )
            }
            let after = Self.documentStates(server)
            for (resourceId, state) in before.sorted(by: { $0.key < $1.key }) {
                let now = after[resourceId]
                let applied = appliedTo[resourceId] ?? 0
                if applied == 0, now != state {
                    report.findings.append(
                        .init(
                            index: index,
                            problem: "step \(step): \(event) changed document \(resourceId) without applying an op"))
                } else if let now,
                    now.history.count != state.history.count + applied
                        || now.history.prefix(state.history.count) != state.history[...]
                {
                    report.findings.append(
                        .init(index: index, problem: "step \(step): \(event) rewrote the history of \(resourceId)"))
                }
            }
        }
        for (resourceId, document) in server.documents.sorted(by: { $0.key < $1.key }) {
            var replayed = document.initialText
            for op in document.history { replayed = (try? op.apply(to: replayed)) ?? "<history does not apply>" }
            if replayed != document.text {
                report.findings.append(
                    .init(index: index, problem: "document \(resourceId) differs from a replay of its history"))
            }
        }
    }

    /// What a refused input must not touch in a client session.
    struct SessionState: Equatable {
        var text: String
        var revision: Int
        var outstanding: ClientSession.PendingOp?
        var buffer: ClientSession.PendingOp?
    }

    mutating func clientSession(_ report: inout WireFuzz.Report) {
        var session = ClientSession(
            clientId: "c0", userId: "u0", resourceId: "doc",
            configuration: .init(protocolVersion: rng.chance(0.5) ? .v2 : .original))
        for step in 0..<Self.events {
            let length = session.document.count
            let event: ClientSession.Event
            switch below(10) {
            case 0: event = .connected
            case 1: event = rng.chance(0.3) ? .disconnected : .connected
            case 2, 3:
                event = .localEdit(
                    position: below(length + 2), deleting: below(3), inserting: rng.chance(0.8) ? text(3) : "")
            case 4: event = .localSelection(Selection(anchor: below(length + 2), head: below(length + 2)))
            default:
                let valid = serverEnvelope(length: length, revision: session.revision)
                if rng.chance(0.3),
                    let mutated = try? WireCodec.decodeServer(mutate(Array(WireCodec.encode(valid).utf8)))
                {
                    event = .received(mutated)
                } else {
                    event = .received(valid)
                }
            }
            let before = SessionState(
                text: session.text, revision: session.revision, outstanding: session.outstanding, buffer: session.buffer
            )
            let actions = session.handle(event)
            report.clientEvents += 1
            let changed = actions.contains { action in
                switch action {
                case .editApplied, .remoteApplied, .acknowledged, .joined, .opsDropped: return true
                case .send, .failed, .diverged: return false
                }
            }
            let failed = actions.contains { action in
                switch action {
                case .failed, .diverged: return true
                default: return false
                }
            }
            if failed { report.refusals += 1 }
            let after = SessionState(
                text: session.text, revision: session.revision, outstanding: session.outstanding, buffer: session.buffer
            )
            if failed, !changed, after != before {
                report.findings.append(
                    .init(index: index, problem: "step \(step): \(event) failed but changed the session"))
            }
            for remote in session.remoteCursors
            where max(remote.selection.anchor, remote.selection.head) > session.document.count {
                report.findings.append(
                    .init(
                        index: index,
                        problem:
                            "step \(step): remote cursor \(remote.selection) of \(remote.clientId) outside the document after \(event)"
                    ))
            }
            let selection = session.selection
            if max(selection.anchor, selection.head) > session.document.count
                || min(selection.anchor, selection.head) < 0
            {
                report.findings.append(
                    .init(
                        index: index,
                        problem: "step \(step): selection \(selection) outside the document after \(event)"))
            }
        }
    }
}
