import Testing
import WhaleOT
@testable import WhaleSim

/// A packed history (the live runner's) holds exactly what an array history holds: every event
/// kind comes back equal, in order, with its time; and the checkers, the hash and the JSON lines
/// of a packed copy of a simulated run are the array's.
@Suite struct PackedEventsTests {
    static var everyKind: [HistoryEvent] {
        var op = Operation()
        op.retain(3); op.insert("h\u{301}é👩‍👩‍👧\"\\\n"); op.delete(2); op.retain(1)
        return [
            .edit(client: 0, position: 4, deleted: 1, inserted: "x😀"),
            .invoke(client: 1, opId: "c001.mk3x9:12", op: op, baseRevision: 7),
            .send(client: 1, opId: "c001.mk3x9:12", op: op, revision: 8),
            .ack(client: 1, opId: "c001.mk3x9:12", revision: 9),
            .failed(client: 2, opId: "odd id with no number", code: "dropped: reconnect"),
            .serverApply(document: 3, client: 1, opId: "c001.mk3x9:012", op: op, revision: 9),
            .serverApply(document: 3, client: 1, opId: ":5", op: Operation(), revision: 10),
            .serverApply(document: 3, client: 1, opId: "c2:99999999999999999999", op: op, revision: 11),
            .serverRevision(document: 3, from: 9, to: -1, cause: "restart"),
            .observation(document: 0, from: 1, to: 5, kind: .gap, detail: "socket down"),
            .observation(document: 0, from: 1, to: 5, kind: .conflict, detail: ""),
            .clientRevision(client: 4, revision: Int.max),
            .clientRevision(client: 4, revision: Int.min),
            .error(client: 0, code: "diverged", message: "it does not fit"),
            .cursorDelivered(client: 0, revision: 2, selection: Selection(anchor: 3, head: 1)),
            .selectionSet(client: 0, revision: 2, selection: Selection(cursor: 0)),
            .ownCursor(client: 0, revision: 2, selection: Selection(anchor: 1, head: 4), textLength: 9),
            .remoteCursor(observer: 0, subject: 1, revision: 2, selection: nil, textLength: 9),
            .remoteCursor(observer: 0, subject: 1, revision: 2, selection: Selection(cursor: 5), textLength: 9),
            .connect(client: 5), .disconnect(client: 5, cause: "closed 1006"),
            .serverCrash, .serverRestart, .note("a note"), .heal,
            .quiescence(reached: true, ticksAfterHeal: 12), .quiescence(reached: false, ticksAfterHeal: 0),
            .traffic(messages: 1_000_000, edits: 3, clients: 2),
            .clientFinal(client: 1, text: "", revision: 0, pendingOps: 1, connected: false),
            .serverFinal(document: 0, text: "tout 😀", revision: 3, historyCount: 3),
            .modelInvoke(client: 0, requestId: "r1", mutation: "{\"m\":1}"),
            .modelApply(client: 0, requestId: "r1", order: 4, records: ["account:acc-1 {}", ""]),
            .modelAck(client: 0, requestId: "r1", order: 4),
            .modelFailed(client: 0, requestId: "r2", code: "forbidden"),
            .modelClientFinal(client: 0, page: "board", records: [], pending: 0),
            .modelServerFinal(client: 0, page: "account:acc-1", records: ["a", "b"]),
            .modelServerState(records: ["x"]),
        ]
    }

    /// Past a chunk (``PackedEvents/chunkSize``) every entry still comes back, in order, none split.
    @Test func aHistoryOfManyChunksComesBackEqual() {
        var packed = PackedEvents()
        var expected: [HistoryEntry] = []
        let kinds = Self.everyKind
        var i = 0
        while packed.byteCount < 3 * PackedEvents.chunkSize + 12_345 {
            let entry = HistoryEntry(time: i * 7, event: kinds[i % kinds.count])
            packed.append(entry)
            expected.append(entry)
            i += 1
        }
        #expect(packed.count == expected.count)
        #expect(Array(packed) == expected)
    }

    @Test func everyEventKindComesBackEqual() {
        var packed = PackedEvents()
        var expected: [HistoryEntry] = []
        for (i, event) in Self.everyKind.enumerated() {
            // Times go back as well as forward (a late event) and jump far.
            let entry = HistoryEntry(time: i == 3 ? 2 : i * 1_000_003, event: event)
            packed.append(entry)
            expected.append(entry)
        }
        #expect(packed.count == expected.count)
        #expect(Array(packed) == expected)
        // Reading twice gives the same (the bytes are not consumed).
        #expect(Array(packed) == expected)
    }

    @Test func aPackedEventTakesAFewBytes() {
        var packed = PackedEvents()
        for i in 0..<10_000 {
            packed.append(HistoryEntry(time: i * 3, event: .clientRevision(client: i % 300, revision: i / 10)))
        }
        #expect(packed.byteCount < 10_000 * 8)
    }

    @Test(arguments: ["live-demo", "flaky-network", "unicode", "server-restart"])
    func aPackedCopyOfASimulatedRunReadsTheSame(_ name: String) throws {
        let scenario = try BuiltinScenarios.load(name)
        let result = Simulation.run(scenario, seed: 3)
        let h = result.history
        var copy = History(
            clientNames: h.clientNames, clientDocuments: h.clientDocuments, documentNames: h.documentNames,
            initialTexts: h.initialTexts, protocolVersion: h.protocolVersion, packed: true)
        for e in h.events { copy.append(e.event, at: e.time) }
        #expect(copy.isPacked)
        #expect(copy.count == h.count)
        #expect(copy.hash == h.hash)
        #expect(copy.entries == h.entries)
        #expect(copy.jsonLines() == h.jsonLines())
        let names = CheckerName.allCases
        #expect(Checkers.run(names, on: copy).map(\.verdict) == Checkers.run(names, on: h).map(\.verdict))
        #expect(Checkers.run(names, on: copy).map(\.evidence) == Checkers.run(names, on: h).map(\.evidence))
    }
}
