import WhaleOT

extension ClientSession {
    /// The largest revision a client accepts (2^53, the largest integer every JSON peer keeps
    /// exact); counting up from it cannot overflow.
    public static let revisionMax = 1 << 53

    /// Joins the document. A protocol-2 client that has state asks to resync from its revision and
    /// resends its outstanding op at once (same op id: the server acknowledges it again instead of
    /// applying it twice if it already had it).
    mutating func onConnected(_ actions: inout [Action]) {
        connection = .connecting
        let resync = speaksV2 && hasJoined && !has(.reconnectDropsUnacked)
        actions.append(
            .send(
                ClientEnvelope(
                    messageId: makeMessageId("j"),
                    message: .resourceConnection(resourceId: resourceId, revision: resync ? revision : nil))))
        if resync, let outstanding {
            actions.append(.send(change(outstanding)))
        }
    }

    mutating func onConnectionConf(_ conf: ResourceConnectionConf, _ actions: inout [Action]) {
        guard conf.resourceId == resourceId else {
            actions.append(.failed("resourceConnectionConf for \(conf.resourceId), expected \(resourceId)"))
            return
        }
        // A revision is a history count: a negative or absurd one (found by WireFuzz: Int.max, after
        // which the next op's `revision += 1` trapped) is refused, and nothing changes.
        guard (0...ClientSession.revisionMax).contains(conf.revision) else {
            actions.append(
                .failed("resourceConnectionConf revision \(conf.revision) is outside 0...\(ClientSession.revisionMax)"))
            return
        }
        if let missed = conf.missedOps, conf.initialState == nil {
            connection = .joined
            for entry in missed {
                if isAck(opId: entry.opId, messageId: nil) {
                    onAck(&actions)
                } else if let seq = ownOpSeq(entry.opId), seq <= lastAckedOpSeq {
                    continue  // an op of ours acknowledged before: nothing new
                } else {
                    onRemoteOp(entry.op, &actions)
                }
            }
            if revision != conf.revision {
                actions.append(.failed("resync ended at revision \(revision), server says \(conf.revision)"))
            }
            // An op made while the join was under way has not gone out yet.
            if let outstanding, sentOutstandingOpId != outstanding.opId {
                actions.append(.send(change(outstanding)))
            }
            sendCursorIfPossible(&actions)
            return
        }
        // Full state: pending local ops cannot be rebased onto it; say so rather than lose them silently.
        var dropped: [String] = []
        if let outstanding { dropped.append(outstanding.opId) }
        if let buffer { dropped.append(buffer.opId) }
        // The fault `reconnect-drops-unacked` throws them away without a word, as the original client did.
        let silently = has(.reconnectDropsUnacked) && hasJoined
        if !dropped.isEmpty, !silently {
            actions.append(
                .opsDropped(
                    opIds: dropped, reason: "the server sent its full state; pending edits cannot be rebased onto it"))
        }
        outstanding = nil
        buffer = nil
        document = TextDocument(conf.initialState ?? "")
        revision = conf.revision
        selection = Selection(anchor: min(selection.anchor, document.count), head: min(selection.head, document.count))
        remoteCursors.removeAll()
        connection = .joined
        hasJoined = true
        cursorDirty = true
        actions.append(.joined(revision: revision))
        sendCursorIfPossible(&actions)
    }

    /// Gives up on the pending ops and asks for the full state: the way out after the server
    /// refused an op or a message could not be processed.
    mutating func resynchronizeFromScratch(reason: String, _ actions: inout [Action]) {
        var dropped: [String] = []
        if let outstanding { dropped.append(outstanding.opId) }
        if let buffer { dropped.append(buffer.opId) }
        outstanding = nil
        buffer = nil
        if !dropped.isEmpty { actions.append(.opsDropped(opIds: dropped, reason: reason)) }
        guard speaksV2 else { return }  // the original client has no way back: it stays as it is
        connection = .connecting
        actions.append(
            .send(
                ClientEnvelope(
                    messageId: makeMessageId("j"),
                    message: .resourceConnection(resourceId: resourceId, revision: nil))))
    }
}
