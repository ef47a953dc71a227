import Testing
import WhaleOT
@testable import WhaleProtocol

@Suite struct ClientServerTests {
    @Test func joiningGivesTheInitialState() {
        var pump = Pump(clients: 1, text: "hello")
        pump.connect(0)
        pump.settle()
        #expect(pump.clients[0].text == "hello")
        #expect(pump.clients[0].connection == .joined)
        #expect(pump.clientActions[0].contains(.joined(revision: 0)))
    }

    @Test func concurrentInsertsAtOnePositionConverge() {
        var pump = Pump(clients: 2, text: "ab")
        pump.connect(0); pump.connect(1); pump.settle()
        pump.edit(0, at: 1, inserting: "X")
        pump.edit(1, at: 1, inserting: "Y")
        pump.settle()
        #expect(pump.texts == ["aXYb", "aXYb"] || pump.texts == ["aYXb", "aYXb"])
        #expect(pump.serverText == pump.texts[0])
        #expect(pump.server.documents["doc"]?.revision == 2)
    }

    @Test func theBufferComposesEditsWhileAwaitingAck() {
        var pump = Pump(clients: 2, text: "")
        pump.connect(0); pump.connect(1); pump.settle()
        pump.edit(0, at: 0, inserting: "a")
        pump.edit(0, at: 1, inserting: "b")
        pump.edit(0, at: 2, inserting: "c")
        #expect(pump.clients[0].syncState == .awaitingAckWithBuffer)
        #expect(pump.toServer[0].count == 1)
        pump.edit(1, at: 0, inserting: "Z")
        pump.settle()
        #expect(pump.texts[0] == pump.texts[1])
        #expect(pump.texts[0] == pump.serverText)
        #expect(Set(pump.texts[0]) == Set("abcZ"))
        #expect(pump.clients.allSatisfy { $0.syncState == .synchronized })
    }

    @Test func theServerRefusesABadRevisionWithAnError() {
        var pump = Pump(clients: 1, text: "abc")
        pump.connect(0); pump.settle()
        var op = Operation(); op.retain(3)
        op.insert("!")
        let actions = pump.server.handle(
            .received(
                "c0",
                ClientEnvelope(
                    messageId: "m9", message: .docChange(DocChange(resourceId: "doc", rev: 5, op: op, opId: "c0:99")))))
        #expect(
            actions == [
                .send(
                    "c0",
                    ServerEnvelope(
                        senderId: "whalesim-server", messageId: "e:m9",
                        message: .error(ProtocolError(.badRevision, "revision 5 is not in 0...0", inReplyTo: "m9"))))
            ])
        #expect(pump.serverText == "abc")
    }

    @Test func theServerRefusesAnOpThatDoesNotSpanTheDocument() {
        var pump = Pump(clients: 1, text: "abc")
        pump.connect(0); pump.settle()
        var op = Operation(); op.retain(5)
        let actions = pump.server.handle(
            .received(
                "c0",
                ClientEnvelope(
                    messageId: "m1", message: .docChange(DocChange(resourceId: "doc", rev: 0, op: op, opId: "c0:1")))))
        guard case .send(_, let envelope)? = actions.first, case .error(let error) = envelope.message else {
            Issue.record("expected an error, got \(actions)"); return
        }
        #expect(error.code == .badOperation)
        #expect(pump.server.documents["doc"]?.revision == 0)
    }

    @Test func theOriginalProtocolGetsNoErrorMessage() {
        var pump = Pump(clients: 1, version: .original, text: "abc")
        pump.connect(0); pump.settle()
        var op = Operation(); op.retain(5)
        let actions = pump.server.handle(
            .received(
                "c0", ClientEnvelope(messageId: "m1", message: .docChange(DocChange(resourceId: "doc", rev: 0, op: op)))
            ))
        #expect(actions.isEmpty)
    }

    @Test func aReconnectResyncsAndResendsWithoutApplyingTwice() {
        var pump = Pump(clients: 2, text: "")
        pump.connect(0); pump.connect(1); pump.settle()
        pump.edit(0, at: 0, inserting: "hello")
        pump.deliverToServer(0)  // applied on the server; the ack is in flight
        pump.disconnect(0)  // ... and lost
        pump.edit(1, at: 0, inserting: ">")
        pump.settle()
        pump.connect(0)  // resync from revision 0 plus an immediate resend
        pump.settle()
        #expect(pump.texts == [">hello", ">hello"])
        #expect(pump.serverText == ">hello")
        #expect(pump.server.documents["doc"]?.revision == 2)
        #expect(pump.clientActions[0].contains(.acknowledged(opId: "c0:1", revision: 1)))
    }

    @Test func aResentOpTheServerNeverSawIsApplied() {
        var pump = Pump(clients: 2, text: "")
        pump.connect(0); pump.connect(1); pump.settle()
        pump.edit(0, at: 0, inserting: "abc")
        pump.disconnect(0)  // lost before the server saw it
        pump.edit(1, at: 0, inserting: "Z")
        pump.settle()
        pump.connect(0)
        pump.settle()
        #expect(pump.texts[0] == pump.texts[1])
        #expect(pump.texts[0] == pump.serverText)
        #expect(pump.serverText.count == 4)
    }

    @Test func theResendFaultAppliesTwice() {
        var pump = Pump(clients: 2, serverFaults: [.serverAppliesResendTwice], text: "")
        pump.connect(0); pump.connect(1); pump.settle()
        pump.edit(0, at: 0, inserting: "hi")
        pump.deliverToServer(0)
        pump.disconnect(0)
        pump.connect(0)
        pump.settle()
        #expect(pump.serverText == "hihi")
        #expect(pump.texts[1] == "hihi")
        #expect(pump.texts[0] == "hi")  // the author ignores the second ack: divergence
    }

    @Test func clientTiePriorityFaultDiverges() {
        var pump = Pump(clients: 2, clientFaults: [.clientTiePriority], text: "")
        pump.connect(0); pump.connect(1); pump.settle()
        pump.edit(0, at: 0, inserting: "X")
        pump.edit(1, at: 0, inserting: "Y")
        pump.settle()
        #expect(pump.texts[0] != pump.texts[1])
    }

    @Test func remoteCursorsStayBeforeTextInsertedAtThem() {
        var pump = Pump(clients: 2, text: "abcdef")
        pump.connect(0); pump.connect(1); pump.settle()
        pump.select(1, Selection(cursor: 3))
        pump.settle()
        #expect(pump.clients[0].remoteCursors.map(\.selection) == [Selection(cursor: 3)])
        pump.edit(0, at: 3, inserting: "XY")
        #expect(pump.clients[0].remoteCursors.map(\.selection) == [Selection(cursor: 3)])
        #expect(pump.clients[0].selection == Selection(cursor: 0))
        pump.select(0, Selection(cursor: 5))
        pump.settle()
        // Client 1 moved its own caret through a remote insert at it: it stays before.
        #expect(pump.clients[1].selection == Selection(cursor: 3))
        #expect(pump.clients[1].remoteCursors.map(\.selection) == [Selection(cursor: 5)])
    }

    @Test func theAuthorsCursorMovesAfterItsOwnInsert() {
        var pump = Pump(clients: 1, text: "ab")
        pump.connect(0); pump.settle()
        pump.select(0, Selection(cursor: 1))
        pump.edit(0, at: 1, inserting: "XYZ")
        #expect(pump.clients[0].selection == Selection(cursor: 4))
    }

    /// An edit sends no `cursorUpdate`: the server moves the author's shared cursor through the
    /// op with the own rule and the op's broadcast carries it. One frame per member per op.
    @Test func anEditsBroadcastCarriesTheAuthorsCursor() {
        var pump = Pump(clients: 2, text: "ab")
        pump.connect(0); pump.connect(1); pump.settle()
        pump.select(0, Selection(cursor: 1)); pump.settle()
        let sentBefore = pump.clientActions[0].count, serverBefore = pump.serverActions.count
        pump.edit(0, at: 1, inserting: "XYZ")
        let sent = pump.clientActions[0][sentBefore...].compactMap { action -> String? in
            if case .send(let envelope) = action { return envelope.message.typeName }
            return nil
        }
        #expect(sent == ["docChange"])
        pump.settle()
        #expect(pump.clients[0].selection == Selection(cursor: 4))
        #expect(pump.clients[1].remoteCursors.map(\.selection) == [Selection(cursor: 4)])
        let frames = pump.serverActions[serverBefore...].compactMap { action -> String? in
            if case .send(_, let envelope) = action { return envelope.message.typeName }
            return nil
        }
        #expect(frames == ["docChangeReturnOps", "docChangeReturnOps"], "the ack and the broadcast, no cursorUpdate")
    }

    /// Concurrent inserts at the same place: each client shows the other's cursor where the
    /// other has it, whichever order the server took them in.
    @Test func carriedCursorsAgreeAfterConcurrentInsertsAtOnePlace() {
        for first in [0, 1] {
            var pump = Pump(clients: 2, text: "ab")
            pump.connect(0); pump.connect(1); pump.settle()
            pump.select(0, Selection(cursor: 1)); pump.select(1, Selection(cursor: 1)); pump.settle()
            pump.edit(0, at: 1, inserting: "x")
            pump.edit(1, at: 1, inserting: "y")
            pump.deliverToServer(first); pump.deliverToServer(1 - first)
            pump.settle()
            #expect(pump.texts[0] == pump.texts[1])
            #expect(
                pump.clients[1].remoteCursors.map(\.selection) == [pump.clients[0].selection],
                "server took c\(first) first")
            #expect(
                pump.clients[0].remoteCursors.map(\.selection) == [pump.clients[1].selection],
                "server took c\(first) first")
        }
    }

    @Test func presenceLeftRemovesTheRemoteCursor() {
        var pump = Pump(clients: 2, text: "abc")
        pump.connect(0); pump.connect(1); pump.settle()
        pump.select(1, Selection(anchor: 2, head: 1))
        pump.settle()
        #expect(pump.clients[0].remoteCursors.count == 1)
        pump.disconnect(1)
        pump.settle()
        #expect(pump.clients[0].remoteCursors.isEmpty)
    }

    @Test func aRestartFromPersistedEntriesKeepsEveryAcknowledgedOp() throws {
        var pump = Pump(clients: 2, text: "base")
        pump.connect(0); pump.connect(1); pump.settle()
        pump.edit(0, at: 4, inserting: "!")
        pump.edit(1, at: 0, inserting: "<")
        pump.settle()
        var persisted = PersistedDocument(resourceId: "doc", initialText: "base")
        for case .persist(let entry) in pump.serverActions { persisted.append(entry) }
        let restarted = try CollabServer(restoring: [persisted])
        #expect(restarted.documents["doc"]?.text == pump.serverText)
        #expect(restarted.documents["doc"]?.revision == 2)
    }

    @Test func revisionResetFaultForgetsHistoryWhenTheLastClientLeaves() {
        var pump = Pump(clients: 1, serverFaults: [.revisionResetOnEmpty], text: "")
        pump.connect(0); pump.settle()
        pump.edit(0, at: 0, inserting: "abc")
        pump.settle()
        pump.disconnect(0)
        #expect(pump.server.documents["doc"]?.revision == 0)
        #expect(pump.serverText == "abc")
    }

    @Test func unitFaultsSendOpsTheServerRefuses() {
        var pump = Pump(clients: 1, clientFaults: [.utf8LengthUnits], text: "é")
        pump.connect(0); pump.settle()
        pump.edit(0, at: 1, inserting: "x")
        pump.settle()
        #expect(pump.clientActions[0].contains { if case .opsDropped = $0 { true } else { false } })
        #expect(pump.serverText == "é")
    }

    @Test func slowClientFaultDropsBroadcasts() {
        var pump = Pump(clients: 2, serverFaults: [.serverDropsSlowClient], text: "")
        pump.connect(0); pump.connect(1); pump.settle()
        _ = pump.server.handle(.backpressure("c1", slow: true))
        pump.edit(0, at: 0, inserting: "x")
        pump.settle()
        #expect(pump.texts == ["x", ""])
    }
}
