import WhaleProtocol
import WhaleSim

/// The note session's probes for the checkers: cursors, and the final state.
extension NoteSession {
    /// Records the client's own cursor and its view of each of `others` (the cursor checker's probe).
    func recordCursors(others: [(index: Int, clientId: ClientID)]) {
        state.withLockedValue { s in
            let length = s.session.document.count
            context.recorder.record(
                .ownCursor(
                    client: index, revision: s.session.revision, selection: s.session.selection, textLength: length))
            for other in others where other.index != index {
                let view = s.session.remoteCursors.first { $0.clientId == other.clientId }?.selection
                context.recorder.record(
                    .remoteCursor(
                        observer: index, subject: other.index, revision: s.session.revision, selection: view,
                        textLength: length))
            }
        }
    }

    func recordFinal() {
        state.withLockedValue { s in
            let pending = (s.session.outstanding == nil ? 0 : 1) + (s.session.buffer == nil ? 0 : 1)
            context.recorder.record(
                .clientFinal(
                    client: index, text: s.session.text, revision: s.session.revision,
                    pendingOps: pending, connected: s.session.connection == .joined))
        }
    }
}
