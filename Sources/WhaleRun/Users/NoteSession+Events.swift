import NIOConcurrencyHelpers
import WhaleLoad
import WhaleProtocol
import WhaleSim

/// The session's events: a frame from the server decoded and fed in, and every event (a frame, a
/// local edit or selection, a connection opened or lost) turned into history, metrics and frames out.
extension NoteSession {
    /// One frame, valid only during the call.
    func receive(_ bytes: UnsafeRawBufferPointer, generation: Int) {
        context.recorder.message()
        guard let envelope = try? WireCodec.decodeServer(buffer: bytes) else {
            context.metrics.error("client:undecodable")
            let text = String(decoding: bytes.prefix(120), as: UTF8.self)
            state.withLockedValue { _ in
                context.recorder.record(.error(client: index, code: "client", message: "undecodable frame: \(text)"))
            }
            return
        }
        if envelope.isForTheModel {
            if state.withLockedValue({ $0.generation == generation }) { model?.received(envelope) }
            return
        }
        state.withLockedValue { s in
            guard s.generation == generation else { return }
            if case .error(let e) = envelope.message {
                context.metrics.error("error:\(e.code.rawValue)")
                context.recorder.record(.error(client: index, code: e.code.rawValue, message: e.message))
            }
            let remoteOpId: String? =
                if case .docChangeReturnOps(_, _, let opId, _) = envelope.message {
                    context.ops.opId(messageId: envelope.messageId, opId: opId)
                } else { nil }
            let actions = handle(.received(envelope), in: &s)
            let nowUs = context.metrics.clock.nowUs
            // Joined: a first join answers with `.joined`, a resync only with its missed ops, so
            // look at the connection itself. (Waiting for `.joined` alone left every resynced
            // socket looking unanswered: it was dropped as half-open 9 s later, and again, and a
            // run under heavy CPU load could not find all its clients joined at once.)
            if let started = s.connectStartedUs, s.session.connection == .joined {
                context.metrics.latency("connect", us: nowUs - started)
                s.connectStartedUs = nil
            }
            for action in actions {
                switch action {
                case .remoteApplied:
                    if let id = remoteOpId, let op = context.ops.op(id) {
                        context.metrics.latency(
                            op.crossedDrop ? "op_remote_apply_resent" : "op_remote_apply", us: nowUs - op.invokedUs)
                    }
                default: break
                }
            }
        }
    }

    /// Feeds one event to the session (lock held), records what the simulator records, sends frames.
    @discardableResult
    func handle(_ event: ClientSession.Event, in s: inout State) -> [ClientSession.Action] {
        let before = s.session.revision
        let actions = s.session.handle(event)
        let nowUs = context.metrics.clock.nowUs
        for action in actions {
            switch action {
            case .send(let envelope):
                if case .docChange(let change) = envelope.message {
                    let opId = change.opId ?? envelope.messageId
                    // Only the original protocol's broadcast names an op by its message id alone.
                    if change.opId == nil { context.ops.sent(messageId: envelope.messageId, opId: opId) }
                    context.recorder.record(.send(client: index, opId: opId, op: change.op, revision: change.rev))
                    if s.oldestPendingSinceMs == nil { s.oldestPendingSinceMs = context.metrics.clock.nowMs }
                }
                if let socket = s.socket {
                    context.recorder.message()
                    socket.send(bytes: WireCodec.encodeBytes(envelope), binary: context.protocolVersion == .original)
                }
            case .editApplied(let opId, let op):
                if context.ops.op(opId) == nil {
                    context.ops.invoked(opId: opId, client: index, atUs: min(s.intendedUs ?? nowUs, nowUs))
                    context.metrics.count("ops_invoked")
                    context.metrics.attempt()
                    context.recorder.record(
                        .invoke(client: index, opId: opId, op: op, baseRevision: s.session.revision))
                }
            case .acknowledged(let opId, let revision):
                context.metrics.count("ops_acked")
                if let op = context.ops.op(opId) {
                    context.metrics.latency(op.crossedDrop ? "op_ack_resent" : "op_ack", us: nowUs - op.invokedUs)
                }
                context.recorder.record(.ack(client: index, opId: opId, revision: revision))
                s.oldestPendingSinceMs = s.session.outstanding == nil ? nil : context.metrics.clock.nowMs
            case .remoteApplied, .joined:
                break
            case .opsDropped(let opIds, let reason):
                for id in opIds {
                    context.metrics.error("failed:dropped")
                    context.recorder.record(.failed(client: index, opId: id, code: "dropped: \(reason)"))
                }
            case .failed(let message):
                context.metrics.error("client:failed")
                context.recorder.record(.error(client: index, code: "client", message: message))
            case .diverged(let message):
                context.metrics.error("client:diverged")
                context.recorder.record(.error(client: index, code: History.divergedCode, message: message))
            }
        }
        if s.session.revision != before {
            context.recorder.record(.clientRevision(client: index, revision: s.session.revision))
        }
        return actions
    }
}
