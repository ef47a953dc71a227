import WhaleOT
import WhaleProtocol

/// The cursor cases (protocol 2; the original keeps cursors local): a remote selection stays
/// before text inserted at it and moves to a deletion's start, the author's own moves after its
/// insert, a selection keeps its direction, and one sent at an old revision is transformed to
/// the head (PROTOCOL.md §3).
enum CursorCases {
    static let all: [ConformCase] = [
        ConformCase(
            "cursors.remote-insert-at-caret",
            "A remote caret stays before text another member inserts exactly at it.", requires: [.protocol2]
        ) { c async throws(ConformFailure) in
            try await c.remoteCursor(text: "hello world", selection: Selection(cursor: 5), edits: [insert("XY", at: 5)])
        },
        ConformCase(
            "cursors.remote-insert-around-selection",
            "A remote selection shifts by inserts before it, grows by an insert inside it, and ignores one after it.",
            requires: [.protocol2]
        ) { c async throws(ConformFailure) in
            try await c.remoteCursor(
                text: "hello brave new world", selection: Selection(anchor: 6, head: 15),
                edits: [insert("__", at: 1), insert("++", at: 12), insert("!!", at: 23)])
        },
        ConformCase(
            "cursors.remote-delete-around",
            "A remote caret inside a deleted range moves to the deletion's start; a backward selection cut by a delete keeps its direction.",
            requires: [.protocol2]
        ) { c async throws(ConformFailure) in
            try await c.remoteCursor(text: "abcdefghijkl", selection: Selection(cursor: 6), edits: [delete(6, at: 3)])
            try await c.remoteCursor(
                text: "abcdefghijkl", selection: Selection(anchor: 9, head: 4), edits: [delete(4, at: 2)])
        },
        ConformCase(
            "cursors.own-insert-at-caret",
            "The author's own caret moves after its insert at the caret, and the op's broadcast carries it (docChangeReturnOps.data.cursor).",
            requires: [.protocol2]
        ) { c async throws(ConformFailure) in
            try await c.ownCursor(text: "hello world", selection: Selection(cursor: 5), edit: insert("XY", at: 5))
        },
        ConformCase(
            "cursors.own-delete-selection",
            "The author's selection over the range it deletes collapses to the deletion's start in the op's broadcast.",
            requires: [.protocol2]
        ) { c async throws(ConformFailure) in
            try await c.ownCursor(text: "hello world", selection: Selection(anchor: 2, head: 8), edit: delete(6, at: 2))
        },
        ConformCase(
            "cursors.update-at-old-revision",
            "A cursorUpdate sent at a revision behind the head is transformed to the head (remote rule) before it is broadcast, stamped with the head revision.",
            requires: [.protocol2]
        ) { c async throws(ConformFailure) in
            let (note, _) = try await c.note("0123456789")
            let (a, conf) = try await c.member(.member, note: note, name: "A")
            let (b, _) = try await c.member(.colleague, note: note, name: "B")
            let op = Operation.replace(in: 10, at: 0, inserting: "ab")
            try await a.apply(op, rev: conf.revision)
            let selection = Selection(anchor: 8, head: 3)
            b.socket.send(
                ClientEnvelope(
                    messageId: "\(c.caseId)-cur",
                    message: .cursorUpdate(resourceId: note, rev: conf.revision, selection: selection)))
            let expected = try! op.transform(selection: selection, rule: .remote)
            let bob = try await c.login(.colleague).userId
            let seen = try await c.takeCursor(on: a, userId: bob)
            try c.expect(
                seen.selection == expected && seen.rev == conf.revision + 1,
                "B's selection \(selection) at revision \(conf.revision), one op behind, must reach A as \(expected) at revision \(conf.revision + 1); A got \(seen.selection) at \(seen.rev)"
            )
        },
        ConformCase(
            "cursors.presence-left",
            "When a member's socket closes, the others get presenceLeft with its user and client id.",
            requires: [.protocol2]
        ) { c async throws(ConformFailure) in
            let (note, _) = try await c.note("bye")
            let (a, conf) = try await c.member(.member, note: note, name: "A")
            let (b, _) = try await c.member(.colleague, note: note, name: "B")
            b.socket.send(
                ClientEnvelope(
                    messageId: "\(c.caseId)-cur",
                    message: .cursorUpdate(resourceId: note, rev: conf.revision, selection: Selection(cursor: 1))))
            let bob = try await c.login(.colleague).userId
            let cursor = try await c.takeCursor(on: a, userId: bob)
            await b.close()
            let left = await a.socket.take {
                if case .presenceLeft(let r, _, let id) = $0.message { return r == note && id == cursor.clientId };
                return false
            }
            guard case .presenceLeft(_, let user, _)? = left?.message else {
                throw ConformFailure(
                    "A got no presenceLeft for B (client \(cursor.clientId)) after B's socket closed; \(a.socket.recent())"
                )
            }
            try c.expect(user == bob, "presenceLeft must name B's user \(bob); it named \(user)")
        },
    ]
}

extension CaseContext {
    /// The next `cursorUpdate` of `userId` on `client`'s socket.
    func takeCursor(on client: NoteClient, userId: String) async throws(ConformFailure) -> RemoteCursor {
        guard
            case .cursorUpdate(let cursor)? = await client.socket.take(where: {
                if case .cursorUpdate(let cursor) = $0.message { return cursor.userId == userId }
                return false
            })?.message
        else {
            throw ConformFailure(
                "\(client.name) got no cursorUpdate of user \(userId) within \(target.timeout); \(client.socket.recent())"
            )
        }
        return cursor
    }

    /// B shares `selection`; A makes `edits` one after another; a member joining afterwards must
    /// be told B's selection as the remote rule moves it through every edit.
    func remoteCursor(text: String, selection: Selection, edits: [(Int) -> Operation]) async throws(ConformFailure) {
        let (note, _) = try await note(text)
        let (a, conf) = try await member(.member, note: note, name: "A")
        let (b, _) = try await member(.colleague, note: note, name: "B")
        b.socket.send(
            ClientEnvelope(
                messageId: "\(caseId)-cur",
                message: .cursorUpdate(resourceId: note, rev: conf.revision, selection: selection)))
        let bob = try await login(.colleague).userId
        let shared = try await takeCursor(on: a, userId: bob)
        try expect(
            shared.selection == selection,
            "B's cursorUpdate \(selection) must reach A unchanged at the head revision; A got \(shared.selection)")
        var current = text, expected = selection
        for (index, edit) in edits.enumerated() {
            let op = edit(current.unicodeScalars.count)
            try await a.apply(op, rev: conf.revision + index)
            current = try! op.apply(to: current)
            expected = try! op.transform(selection: expected, rule: .remote)
        }
        let (c, _) = try await member(.member, note: note, name: "C")
        guard
            case .cursorUpdate(let moved)? = await c.socket.take(where: {
                if case .cursorUpdate(let cursor) = $0.message { return cursor.clientId == shared.clientId }
                return false
            })?.message
        else {
            throw ConformFailure(
                "a member joining after the edits was not told B's cursor (client \(shared.clientId)); \(c.socket.recent())"
            )
        }
        try expect(
            moved.selection == expected,
            "B's selection \(selection) over \(quoted(text)) must move through A's \(edits.count) edit(s) by the remote rule to \(expected) (stay before an insert at it, to a deletion's start, direction kept); a new member was told \(moved.selection)"
        )
    }

    /// A shares `selection`, then makes `edit`: the op's broadcast must carry A's selection as
    /// the own rule moves it.
    func ownCursor(text: String, selection: Selection, edit: (Int) -> Operation) async throws(ConformFailure) {
        let (note, _) = try await note(text)
        let (a, conf) = try await member(.member, note: note, name: "A")
        let (b, _) = try await member(.colleague, note: note, name: "B")
        a.socket.send(
            ClientEnvelope(
                messageId: "\(caseId)-cur",
                message: .cursorUpdate(resourceId: note, rev: conf.revision, selection: selection)))
        let ann = try await login(.member).userId
        _ = try await takeCursor(on: b, userId: ann)
        let op = edit(text.unicodeScalars.count)
        let sent = a.send(op, rev: conf.revision)
        let expected = try! op.transform(selection: selection, rule: .own)
        guard
            case .docChangeReturnOps(_, _, _, let cursor)? = await b.socket.take(where: {
                $0.messageId == sent.messageId && $0.message.typeName == "docChangeReturnOps"
            })?.message
        else {
            throw ConformFailure("B never received A's op \(sent.messageId); \(b.socket.recent())")
        }
        guard let cursor else {
            throw ConformFailure(
                "A's op broadcast carries no cursor (docChangeReturnOps.data.cursor) although A shares its selection")
        }
        try expect(
            cursor.userId == ann && cursor.selection == expected,
            "A's own selection \(selection) must move through its op \(op) by the own rule to \(expected) in the broadcast; it carried \(cursor.selection) for user \(cursor.userId)"
        )
    }
}
