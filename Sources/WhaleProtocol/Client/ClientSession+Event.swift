import WhaleOT

extension ClientSession {
    /// What happens to a client.
    public enum Event: Sendable, Hashable {
        /// The transport opened (first connect or reconnect).
        case connected
        /// The transport closed; messages in flight are lost.
        case disconnected
        case received(ServerEnvelope)
        /// The user replaced `deleting` scalars at `position` with `inserting` (scalar offsets in
        /// the client's current text).
        case localEdit(position: Int, deleting: Int, inserting: String)
        /// The user moved the caret or selection.
        case localSelection(Selection)
    }

    /// What the session asks its host to do, and what it tells the host's history.
    public enum Action: Sendable, Hashable {
        case send(ClientEnvelope)
        /// A local edit was applied to the local document; it travels as part of `opId`
        /// (a new outstanding op, or composed into the buffer).
        case editApplied(opId: String, op: Operation)
        /// A remote op, transformed against the pending local ops, was applied locally.
        case remoteApplied(op: Operation, revision: Int)
        /// The server acknowledged `opId`; the client is now at `revision`.
        case acknowledged(opId: String, revision: Int)
        /// The client took the server's full state at `revision`.
        case joined(revision: Int)
        /// Pending local ops were thrown away (they will never be acknowledged), and why.
        case opsDropped(opIds: [String], reason: String)
        /// The server refused something, or the client could not process a message.
        case failed(String)
        /// The local document no longer matched the server's at the same revision: a remote op
        /// did not fit it, or the server refused a local op as not fitting its own copy. With a
        /// correct server and client this cannot happen, so the host reports it as a divergence
        /// (the session resynchronizes from scratch, so it may not show at the end).
        case diverged(String)
    }

    /// Feeds one event; returns the actions to carry out, in order.
    public mutating func handle(_ event: Event) -> [Action] {
        var actions: [Action] = []
        switch event {
        case .connected:
            onConnected(&actions)
        case .disconnected:
            connection = .disconnected
            sentOutstandingOpId = nil
            remoteCursors.removeAll()
        case .received(let envelope):
            onReceived(envelope, &actions)
        case .localEdit(let position, let deleting, let inserting):
            onLocalEdit(position: position, deleting: deleting, inserting: inserting, &actions)
        case .localSelection(let newSelection):
            guard newSelection.anchor >= 0, newSelection.head >= 0,
                newSelection.anchor <= document.count, newSelection.head <= document.count
            else {
                actions.append(
                    .failed(
                        "selection \(newSelection.anchor)..\(newSelection.head) is outside the document (0...\(document.count))"
                    ))
                return actions
            }
            selection = newSelection
            cursorDirty = true
            sendCursorIfPossible(&actions)
        }
        return actions
    }

    // MARK: Helpers shared by the event handlers

    mutating func makeMessageId(_ kind: String) -> String {
        defer { nextMessageSeq += 1 }
        return "\(clientId.rawValue):\(kind)\(nextMessageSeq)"
    }

    mutating func makeOpId() -> String {
        defer { nextOpSeq += 1 }
        return "\(clientId.rawValue):\(nextOpSeq)"
    }

    /// The sequence number of one of this client's op ids, or nil if the id is someone else's.
    func ownOpSeq(_ opId: String?) -> Int? {
        guard let opId, opId.hasPrefix(clientId.rawValue + ":") else { return nil }
        return Int(opId.dropFirst(clientId.rawValue.count + 1))
    }

    /// The change message for `pending`, noting that the outstanding op went out on this connection.
    mutating func change(_ pending: PendingOp) -> ClientEnvelope {
        if pending.opId == outstanding?.opId { sentOutstandingOpId = pending.opId }
        return ClientEnvelope(
            messageId: pending.opId,
            message: .docChange(
                DocChange(resourceId: resourceId, rev: revision, op: pending.op, opId: speaksV2 ? pending.opId : nil))
        )
    }

    /// Protocol 2 sends the selection only when synchronized: the server transforms it from a
    /// revision it knows, which excludes ops still pending here.
    mutating func sendCursorIfPossible(_ actions: inout [Action]) {
        guard speaksV2, configuration.sharesCursor, cursorDirty, connection == .joined, outstanding == nil else {
            return
        }
        cursorDirty = false
        actions.append(
            .send(
                ClientEnvelope(
                    messageId: makeMessageId("k"),
                    message: .cursorUpdate(resourceId: resourceId, rev: revision, selection: selection))))
    }
}
