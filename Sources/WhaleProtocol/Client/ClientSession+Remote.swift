import WhaleOT

extension ClientSession {
    mutating func onReceived(_ envelope: ServerEnvelope, _ actions: inout [Action]) {
        switch envelope.message {
        case .resourceConnectionConf(let conf):
            onConnectionConf(conf, &actions)
        case .docChangeReturnOps(let resource, let op, let opId, let cursor):
            guard resource == resourceId else {
                actions.append(.failed("docChangeReturnOps for \(resource), expected \(resourceId)"))
                return
            }
            guard connection == .joined else { return }  // before the join answer: covered by the state it brings
            if isAck(opId: opId, messageId: envelope.messageId) {
                onAck(&actions)
            } else if let seq = ownOpSeq(opId), seq <= lastAckedOpSeq {
                return  // acknowledged again after a resend: nothing new happened
            } else {
                let before = revision
                onRemoteOp(op, &actions)
                // The author's cursor after its op, at the revision the op made (applied above).
                if let cursor, revision == before + 1 {
                    onRemoteCursor(
                        RemoteCursor(
                            resourceId: resource, userId: cursor.userId, clientId: cursor.clientId,
                            rev: revision, selection: cursor.selection), &actions)
                }
            }
        case .cursorUpdate(let cursor):
            onRemoteCursor(cursor, &actions)
        case .presenceLeft(_, _, let who):
            remoteCursors.removeAll { $0.clientId == who }
        case .resourceUpdate, .poolJoined:
            break  // model updates and pool membership concern the kanban, not the note
        case .error(let error):
            let refusedPending = error.inReplyTo != nil && error.inReplyTo == outstanding?.opId
            if refusedPending, error.code == .badOperation {
                actions.append(
                    .diverged(
                        "the server refused \(error.inReplyTo!) as not fitting its copy of the note at revision \(revision): \(error.message)"
                    ))
            } else {
                actions.append(.failed("server error \(error.code.rawValue): \(error.message)"))
            }
            if refusedPending || error.code == .badRevision || error.code == .badOperation {
                resynchronizeFromScratch(reason: "the server refused the change: \(error.message)", &actions)
            }
        }
    }

    /// A `docChangeReturnOps` is the ack of our outstanding change when its op id (protocol 2) or
    /// its message id (the original) is the outstanding change's.
    func isAck(opId: String?, messageId: String?) -> Bool {
        guard let outstanding else { return false }
        if let opId { return opId == outstanding.opId }
        return messageId == outstanding.opId
    }

    mutating func onAck(_ actions: inout [Action]) {
        guard let acked = outstanding else { return }
        revision += 1
        if let seq = ownOpSeq(acked.opId) { lastAckedOpSeq = max(lastAckedOpSeq, seq) }
        actions.append(.acknowledged(opId: acked.opId, revision: revision))
        outstanding = buffer
        buffer = nil
        if let next = outstanding, connection == .joined {
            actions.append(.send(change(next)))
        }
        sendCursorIfPossible(&actions)
    }

    /// A remote op is transformed against the outstanding op, then the buffer; the local ops keep
    /// tie priority because the server will give it to them when they arrive after this op.
    mutating func onRemoteOp(_ remote: Operation, _ actions: inout [Action]) {
        var op = remote
        do {
            if var pending = outstanding {
                (pending.op, op) = try transformPending(pending.op, op)
                outstanding = pending
                if var buffered = buffer {
                    (buffered.op, op) = try transformPending(buffered.op, op)
                    buffer = buffered
                }
            }
            let lengthBefore = document.count
            try document.apply(op)
            revision += 1
            selection = try op.transform(selection: clamped(selection, to: lengthBefore), rule: .remote)
            moveRemoteCursors(through: op)
            actions.append(.remoteApplied(op: op, revision: revision))
        } catch {
            actions.append(
                .diverged("the server's op for revision \(revision + 1) did not fit the local copy: \(error)"))
            resynchronizeFromScratch(reason: "a remote op did not fit the local document: \(error)", &actions)
        }
    }

    /// Returns (pending′, remote′). The fault gives the remote op tie priority instead.
    func transformPending(_ pending: Operation, _ remote: Operation) throws(OTError) -> (Operation, Operation) {
        if has(.clientTiePriority) {
            let (remotePrime, pendingPrime) = try Operation.transform(remote, pending)
            return (pendingPrime, remotePrime)
        }
        return try Operation.transform(pending, remote)
    }

    mutating func onRemoteCursor(_ cursor: RemoteCursor, _ actions: inout [Action]) {
        guard cursor.clientId != clientId, cursor.resourceId == resourceId, connection == .joined else { return }
        guard cursor.rev == revision else { return }  // stale: a newer one follows
        // At the server's revision the text is the base of the pending ops; a cursor past its end
        // (a hostile or broken server) is refused rather than shown outside the note.
        let length = outstanding?.op.baseLength ?? document.count
        guard cursor.selection.anchor >= 0, cursor.selection.head >= 0,
            max(cursor.selection.anchor, cursor.selection.head) <= length
        else {
            actions.append(
                .failed(
                    "remote cursor of \(cursor.clientId) at \(cursor.selection.anchor)..\(cursor.selection.head) is outside the note (0...\(length))"
                ))
            return
        }
        var selection = cursor.selection
        let rule: CursorRule = has(.remoteCursorWrongRule) ? .otjs : .remote
        do {
            for pending in [outstanding, buffer].compactMap({ $0 }) {
                selection = try pending.op.transform(selection: selection, rule: rule)
            }
        } catch {
            actions.append(.failed("remote cursor of \(cursor.clientId): \(error)"))
            return
        }
        let view = RemoteCursorView(clientId: cursor.clientId, userId: cursor.userId, selection: selection)
        if let index = remoteCursors.firstIndex(where: { $0.clientId == cursor.clientId }) {
            remoteCursors[index] = view
        } else {
            let index = remoteCursors.firstIndex(where: { $0.clientId > cursor.clientId }) ?? remoteCursors.count
            remoteCursors.insert(view, at: index)
        }
    }
}
