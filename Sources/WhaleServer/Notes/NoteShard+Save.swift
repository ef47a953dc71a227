import WhaleOT
import WhaleProtocol

extension NoteShard {
    /// The original's `saveNote` (GraphQL) sets a note's whole content. Here it becomes one OT op
    /// (delete everything, insert the content) applied through the same ``CollabServer`` by a
    /// short-lived server-side member, so it is persisted, broadcast and transformed like any
    /// edit, and clients editing the note at the time stay consistent.
    func replaceText(_ resourceId: String, with content: String) -> (
        ticket: GroupCommitter.Ticket?, text: String, revision: Int
    ) {
        let member = ClientID("~saveNote")
        var result: (GroupCommitter.Ticket?, String, Int) = (nil, content, 0)
        handleLocked { server in
            var actions = server.handle(.connected(member, userId: "saveNote", protocolVersion: .v2))
            actions += server.handle(
                .received(
                    member,
                    ClientEnvelope(
                        messageId: "save-join", message: .resourceConnection(resourceId: resourceId, revision: nil))))
            let document = server.documents[resourceId]
            let length = document?.document.count ?? 0
            let revision = document?.revision ?? 0
            if document?.text != content {
                let op = Operation.replace(in: length, at: 0, deleting: length, inserting: content)
                actions += server.handle(
                    .received(
                        member,
                        ClientEnvelope(
                            messageId: "save",
                            message: .docChange(DocChange(resourceId: resourceId, rev: revision, op: op)))))
            }
            actions += server.handle(.disconnected(member))
            let now = server.documents[resourceId]
            result.1 = now?.text ?? content
            result.2 = now?.revision ?? 0
            return actions.filter { action in
                if case .send(let client, _) = action { return client != member }
                return true
            }
        } ticket: {
            result.0 = $0
        }
        return result
    }
}
