import WhaleOT
import WhaleProtocol

/// The scripts the OT cases share.
extension CaseContext {
    /// Two members of a note holding `text` send one edit each at the same revision, in a fixed
    /// order: `first` is sent and acknowledged before `second` goes out, so the server must
    /// transform `second` over `first` with `second` (the incoming op) winning ties. Checks the
    /// second's ack, the broadcasts to both, and the note's final text against the oracle and
    /// against `expected`, the outcome PROTOCOL.md states for this edit pair.
    func concurrentPair(text: String, first: (Int) -> Operation, second: (Int) -> Operation, expected: String)
        async throws(ConformFailure)
    {
        let (note, _) = try await note(text)
        let (a, confA) = try await member(.member, note: note, name: "A")
        let (b, confB) = try await member(.colleague, note: note, name: "B")
        let base = confA.initialState ?? ""
        try expect(
            base == text && confB.initialState == text,
            "the note should hold \(quoted(text)); A joined to \(quoted(base)), B to \(quoted(confB.initialState ?? "nil"))"
        )
        let rev = confA.revision
        let length = text.unicodeScalars.count
        let opA = first(length), opB = second(length)
        // The oracle: opB goes over opA with the tie priority (it is the incoming op).
        let oracleB: Operation, oracleText: String
        do {
            oracleB = try Operation.transform(opB, opA).aPrime
            oracleText = try oracleB.apply(to: try opA.apply(to: text))
        } catch {
            throw ConformFailure("the case's own ops do not fit its note (a bug in the suite): \(error)")
        }
        try expect(
            oracleText == expected,
            "the OT oracle gives \(quoted(oracleText)) where PROTOCOL.md's rule gives \(quoted(expected)) (a bug in the suite)"
        )

        let sentA = a.send(opA, rev: rev)
        let ackA = try await a.takeOp(sentA.messageId)
        try expect(
            ackA == opA, "A's op at the head revision must be applied as sent: sent \(opA), acknowledged \(ackA)")
        let sentB = b.send(opB, rev: rev)
        let ackB = try await b.takeOpOrError(sentB.messageId)
        try expect(
            ackB == oracleB,
            "B's op \(opB) at revision \(rev), concurrent with A's \(opA), must be applied as \(oracleB) (B's op has tie priority); the server applied \(ackB)"
        )
        let seenByB = try await b.takeOp(sentA.messageId)
        try expect(seenByB == opA, "B must receive A's op as applied, \(opA); got \(seenByB)")
        let seenByA = try await a.takeOp(sentB.messageId)
        try expect(seenByA == oracleB, "A must receive B's op as the server applied it, \(oracleB); got \(seenByA)")
        let final = try await read(note)
        try expect(
            final.initialState == expected,
            "after both edits the note must read \(quoted(expected)); a fresh join reads \(quoted(final.initialState ?? "nil"))"
        )
        try expect(
            final.revision == rev + 2,
            "two applied ops must make revision \(rev + 2); a fresh join says \(final.revision)")
    }

    /// A note holding `text` gets `edits` from A one after another (each at the revision its
    /// predecessor made), while B, joined before them, sends one edit at the old revision: the
    /// server must transform it over the whole history since then.
    func lateOp(text: String, edits: [(String) -> Operation], late: (Int) -> Operation) async throws(ConformFailure) {
        let (note, _) = try await note(text)
        let (a, conf) = try await member(.member, note: note, name: "A")
        let (b, _) = try await member(.colleague, note: note, name: "B")
        let rev = conf.revision
        var current = text
        var history: [Operation] = []
        var last = ""
        for (index, edit) in edits.enumerated() {
            let op = edit(current)
            do { current = try op.apply(to: current) } catch {
                throw ConformFailure("edit \(index) does not fit its note (a bug in the suite): \(error)")
            }
            history.append(op)
            last = a.send(op, rev: rev + index).messageId
        }
        _ = try await a.takeOp(last)
        let opB = late(text.unicodeScalars.count)
        var oracle = opB
        do {
            for op in history { oracle = try Operation.transform(oracle, op).aPrime }
            current = try oracle.apply(to: current)
        } catch {
            throw ConformFailure("the late op does not fit its note (a bug in the suite): \(error)")
        }
        let sent = b.send(opB, rev: rev)
        let applied = try await b.takeOpOrError(sent.messageId)
        try expect(
            applied == oracle,
            "B's op \(opB) at revision \(rev), \(history.count) revisions behind, must be applied as \(oracle); the server applied \(applied)"
        )
        let final = try await read(note)
        try expect(
            final.initialState == current,
            "the note must read \(quoted(current)); a fresh join reads \(quoted(final.initialState ?? "nil"))")
        try expect(
            final.revision == rev + history.count + 1,
            "revision must be \(rev + history.count + 1); a fresh join says \(final.revision)")
    }
}

extension NoteClient {
    /// The op acknowledging `messageId`, or a failure quoting the `error` (protocol 2) or the
    /// silence (the original protocol has no error) that came instead.
    func takeOpOrError(_ messageId: String) async throws(ConformFailure) -> Operation {
        let answer = await socket.take { envelope in
            guard
                envelope.messageId == messageId
                    || {
                        if case .error(let e) = envelope.message { return e.inReplyTo == messageId }; return false
                    }()
            else { return false }
            return envelope.message.typeName == "docChangeReturnOps" || envelope.message.typeName == "error"
        }
        switch answer?.message {
        case .docChangeReturnOps(_, let op, _, _)?: return op
        case .error(let error)?:
            throw ConformFailure("\(name)'s change \(messageId) was refused: \(error.code.rawValue): \(error.message)")
        default:
            throw ConformFailure(
                "\(name)'s change \(messageId) got no acknowledgement within \(socket.timeout) (refused in silence?); \(socket.recent())"
            )
        }
    }
}
