import Testing
import WhaleOT
@testable import WhaleProtocol

/// Inputs WireFuzz found or that a hostile server could send: refused with `failed`, state unchanged.
@Suite struct ClientSessionHostileInputTests {
    func conf(revision: Int) -> ClientSession.Event {
        .received(
            ServerEnvelope(
                senderId: "srv", messageId: "s1",
                message: .resourceConnectionConf(
                    ResourceConnectionConf(resourceId: "doc", revision: revision, initialState: "ab"))))
    }

    /// A join answer at revision Int.max used to be taken, and the next op's `revision += 1` trapped.
    @Test func anAbsurdJoinRevisionIsRefusedAndNothingTraps() {
        var session = ClientSession(clientId: "c0", userId: "u0", resourceId: "doc")
        _ = session.handle(.connected)
        for revision in [Int.max, -1, ClientSession.revisionMax + 1] {
            let actions = session.handle(conf(revision: revision))
            #expect(
                actions == [
                    .failed("resourceConnectionConf revision \(revision) is outside 0...\(ClientSession.revisionMax)")
                ])
            #expect(session.revision == 0 && session.text == "" && !session.hasJoined)
        }
        // At the largest accepted revision, one more op still counts up without trapping.
        _ = session.handle(conf(revision: ClientSession.revisionMax))
        let op = Operation.replace(in: 2, at: 2, inserting: "c")
        _ = session.handle(
            .received(
                ServerEnvelope(
                    senderId: "srv", messageId: "s2", message: .docChangeReturnOps(resourceId: "doc", op: op, opId: nil)
                )))
        #expect(session.revision == ClientSession.revisionMax + 1 && session.text == "abc")
    }

    /// A remote cursor past the end of the note (WireFuzz case 27 of seed 20261122) is refused.
    @Test func aRemoteCursorOutsideTheNoteIsRefused() {
        var session = ClientSession(clientId: "c0", userId: "u0", resourceId: "doc")
        _ = session.handle(.connected)
        _ = session.handle(conf(revision: 0))
        let far = RemoteCursor(
            resourceId: "doc", userId: "u9", clientId: "c9", rev: 0, selection: Selection(anchor: 0, head: 3))
        let actions = session.handle(
            .received(ServerEnvelope(senderId: "srv", messageId: "s2", message: .cursorUpdate(far))))
        #expect(actions == [.failed("remote cursor of c9 at 0..3 is outside the note (0...2)")])
        #expect(session.remoteCursors.isEmpty)
        let near = RemoteCursor(
            resourceId: "doc", userId: "u9", clientId: "c9", rev: 0, selection: Selection(anchor: 2, head: 1))
        _ = session.handle(.received(ServerEnvelope(senderId: "srv", messageId: "s3", message: .cursorUpdate(near))))
        #expect(session.remoteCursors.map(\.selection) == [Selection(anchor: 2, head: 1)])
    }

    /// A carried author cursor outside the note (or negative) is refused like a `cursorUpdate`;
    /// the op it rides on is still applied.
    @Test func aCarriedCursorOutsideTheNoteIsRefusedAndTheOpKept() {
        var session = ClientSession(clientId: "c0", userId: "u0", resourceId: "doc")
        _ = session.handle(.connected)
        _ = session.handle(conf(revision: 0))
        let op = Operation.replace(in: 2, at: 2, inserting: "c")
        for (i, selection) in [Selection(anchor: 0, head: 9), Selection(anchor: -1, head: 0)].enumerated() {
            let actions = session.handle(
                .received(
                    ServerEnvelope(
                        senderId: "srv", messageId: "s\(i)",
                        message: .docChangeReturnOps(
                            resourceId: "doc", op: i == 0 ? op : Operation.replace(in: 3, at: 3, inserting: "d"),
                            opId: "c9:\(i + 1)",
                            cursor: AuthorCursor(userId: "u9", clientId: "c9", selection: selection)))))
            #expect(
                actions.contains(
                    .failed(
                        "remote cursor of c9 at \(selection.anchor)..\(selection.head) is outside the note (0...\(3 + i))"
                    )))
            #expect(session.remoteCursors.isEmpty)
        }
        #expect(session.text == "abcd" && session.revision == 2)
    }
}
