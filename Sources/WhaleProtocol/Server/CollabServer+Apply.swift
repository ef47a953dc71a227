import WhaleOT

extension CollabServer {
    /// Transforms the change against `history[rev...]` one op at a time (the incoming op has tie
    /// priority), applies it, persists it, and broadcasts it to every member, sender included.
    mutating func apply(
        _ change: DocChange, from client: ClientID, _ connection: Connection, messageId: String,
        _ actions: inout [Action]
    ) {
        let v2 = connection.protocolVersion == .v2
        // Taken out of the dictionary while it changes, so its text buffer is never copied.
        guard connection.resourceId == change.resourceId,
            var document = documents.removeValue(forKey: change.resourceId)
        else {
            refuse(
                ProtocolError(.unknownResource, "not joined to \(change.resourceId)", inReplyTo: messageId), to: client,
                connection, &actions)
            return
        }
        defer { documents[change.resourceId] = document }
        if v2, let opId = change.opId, let revision = document.appliedOpIds[opId], !has(.serverAppliesResendTwice) {
            // A resend of an op already applied: acknowledge it again, apply nothing.
            let op = document.history[revision - 1]
            send(
                .docChangeReturnOps(resourceId: change.resourceId, op: op, opId: opId), messageId: messageId,
                to: client, &actions)
            return
        }
        // `revision-past-head-accepted`: the bound is off by one and the base is clamped to the
        // head, so an op one past it is applied as if at the head instead of refused.
        let pastHead = has(.revisionPastHeadAccepted) ? 1 : 0
        guard change.rev >= 0, change.rev <= document.revision + pastHead else {
            refuse(
                ProtocolError(
                    .badRevision, "revision \(change.rev) is not in 0...\(document.revision)", inReplyTo: messageId),
                to: client, connection, &actions)
            return
        }
        var op = change.op
        do {
            let countsUTF8 = has(.utf8LengthTransform)
            for index in min(change.rev, document.revision)..<document.revision {
                if countsUTF8 {
                    op = try transformCountingUTF8(op, document.history[index])
                } else {
                    op = try Operation.transform(op, document.history[index]).aPrime
                }
            }
            try document.document.apply(op)
        } catch {
            refuse(ProtocolError(.badOperation, "\(error)", inReplyTo: messageId), to: client, connection, &actions)
            return
        }
        document.append(op, opId: change.opId)
        // The author's editor moves its caret after its own insert; everyone else's stays before
        // text inserted at it (PROTOCOL.md §3). Keeping the author's with the own rule is what
        // lets the broadcast carry it, so the author need not send it after every edit.
        var authorCursor: AuthorCursor?
        for index in document.members.indices {
            guard let selection = document.members[index].selection else { continue }
            let isAuthor = document.members[index].clientId == client
            let rule: CursorRule = isAuthor ? .own : .remote
            let moved = Selection(
                anchor: op.transformUnchecked(cursor: selection.anchor, rule: rule),
                head: op.transformUnchecked(cursor: selection.head, rule: rule))
            document.members[index].selection = moved
            if isAuthor, v2 {
                authorCursor = AuthorCursor(userId: connection.userId, clientId: client, selection: moved)
            }
        }
        let revision = document.revision
        actions.append(
            .persist(PersistEntry(resourceId: change.resourceId, revision: revision, op: op, opId: change.opId)))
        actions.append(
            .applied(resourceId: change.resourceId, revision: revision, op: op, opId: change.opId, author: client))
        for member in document.members {
            let v2Member = member.protocolVersion == .v2
            send(
                .docChangeReturnOps(
                    resourceId: change.resourceId, op: op, opId: v2Member ? change.opId : nil,
                    cursor: v2Member ? authorCursor : nil),
                messageId: messageId, to: member.clientId, &actions)
        }
    }

    /// Protocol 2: moves the cursor from the revision the client saw to the current one and
    /// tells the other protocol-2 members.
    mutating func updateCursor(
        _ resourceId: String, rev: Int, selection: Selection, from client: ClientID, _ connection: Connection,
        messageId: String, _ actions: inout [Action]
    ) {
        guard connection.resourceId == resourceId, let index = documents[resourceId]?.memberIndex(client),
            var document = documents.removeValue(forKey: resourceId)
        else {
            refuse(
                ProtocolError(.unknownResource, "not joined to \(resourceId)", inReplyTo: messageId), to: client,
                connection, &actions)
            return
        }
        defer { documents[resourceId] = document }
        guard rev >= 0, rev <= document.revision else {
            refuse(
                ProtocolError(
                    .badRevision, "cursor revision \(rev) is not in 0...\(document.revision)", inReplyTo: messageId),
                to: client, connection, &actions)
            return
        }
        var moved = selection
        do {
            for op in document.history[rev...] {
                moved = try op.transform(selection: moved, rule: .remote)
            }
        } catch {
            refuse(
                ProtocolError(.badOperation, "cursor: \(error)", inReplyTo: messageId), to: client, connection, &actions
            )
            return
        }
        guard moved.anchor <= document.document.count, moved.head <= document.document.count else {
            refuse(
                ProtocolError(.badOperation, "cursor is outside the document", inReplyTo: messageId), to: client,
                connection, &actions)
            return
        }
        document.members[index].selection = moved
        let cursor = RemoteCursor(
            resourceId: resourceId, userId: connection.userId, clientId: client, rev: document.revision,
            selection: moved)
        for member in document.members where member.clientId != client && member.protocolVersion == .v2 {
            send(.cursorUpdate(cursor), messageId: makeMessageId(), to: member.clientId, &actions)
        }
    }
}
