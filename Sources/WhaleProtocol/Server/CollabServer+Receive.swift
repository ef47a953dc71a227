import WhaleOT

extension CollabServer {
    mutating func receive(
        _ envelope: ClientEnvelope, from client: ClientID, _ connection: Connection, _ actions: inout [Action]
    ) {
        switch envelope.message {
        case .resourceConnection(let resourceId, let revision):
            join(resourceId, from: revision, client, connection, messageId: envelope.messageId, &actions)
        case .docChange(let change):
            apply(change, from: client, connection, messageId: envelope.messageId, &actions)
        case .cursorUpdate(let resourceId, let rev, let selection):
            guard connection.protocolVersion == .v2 else { return }
            updateCursor(
                resourceId, rev: rev, selection: selection, from: client, connection, messageId: envelope.messageId,
                &actions)
        }
    }

    mutating func join(
        _ resourceId: String, from revision: Int?, _ client: ClientID, _ connection: Connection, messageId: String,
        _ actions: inout [Action]
    ) {
        if let previous = connection.resourceId, previous != resourceId { leave(client, &actions) }
        connections[client]?.resourceId = resourceId
        var document =
            documents.removeValue(forKey: resourceId)
            ?? ServerDocument(resourceId: resourceId, text: configuration.initialTexts[resourceId] ?? "")
        document.addMember(
            .init(
                clientId: client, userId: connection.userId, protocolVersion: connection.protocolVersion, selection: nil
            ))
        documents[resourceId] = document

        let conf: ResourceConnectionConf
        if connection.protocolVersion == .v2, let revision, revision >= 0, revision <= document.revision {
            let missed = (revision..<document.revision).map {
                MissedOp(op: document.history[$0], opId: document.opIds[$0])
            }
            conf = ResourceConnectionConf(resourceId: resourceId, revision: document.revision, missedOps: missed)
        } else {
            conf = ResourceConnectionConf(
                resourceId: resourceId, revision: document.revision, initialState: document.text)
        }
        send(.resourceConnectionConf(conf), messageId: messageId, to: client, &actions)

        guard connection.protocolVersion == .v2 else { return }
        for member in document.members where member.clientId != client {
            guard let selection = member.selection else { continue }
            let cursor = RemoteCursor(
                resourceId: resourceId, userId: member.userId, clientId: member.clientId, rev: document.revision,
                selection: selection)
            send(.cursorUpdate(cursor), messageId: makeMessageId(), to: client, &actions)
        }
    }

    mutating func leave(_ client: ClientID, _ actions: inout [Action]) {
        guard let connection = connections[client], let resourceId = connection.resourceId,
            let index = documents[resourceId]?.memberIndex(client),
            var document = documents.removeValue(forKey: resourceId)
        else { return }
        document.members.remove(at: index)
        connections[client]?.resourceId = nil
        for member in document.members where member.protocolVersion == .v2 {
            send(
                .presenceLeft(resourceId: resourceId, userId: connection.userId, clientId: client),
                messageId: makeMessageId(), to: member.clientId, &actions)
        }
        if document.members.isEmpty, has(.revisionResetOnEmpty), document.revision > 0 {
            document.resetHistory()
            actions.append(
                .persist(
                    PersistEntry(resourceId: resourceId, revision: 0, op: nil, opId: nil, resetText: document.text)))
        }
        documents[resourceId] = document
    }
}
