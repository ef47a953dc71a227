import Testing
@testable import WhaleReports

/// Which timeline row the report highlights as the first divergence (Timeline.firstDivergence).
@Suite struct TimelineTests {
    func line(_ t: Int, _ type: String, _ fields: [String: HistoryLine.FieldValue] = [:]) -> HistoryLine {
        HistoryLine(t: t, type: type, fields: fields)
    }

    /// c01 types while c00's op is in flight to it: c01 applies c00's op with its own pending, and
    /// ends with another text than the server.
    var history: [HistoryLine] {
        [
            line(1, "invoke", ["client": .string("c00"), "opId": .string("c00:1"), "baseRevision": .int(0)]),
            line(1, "invoke", ["client": .string("c01"), "opId": .string("c01:1"), "baseRevision": .int(0)]),
            line(
                2, "serverApply",
                ["client": .string("c00"), "document": .string("d"), "opId": .string("c00:1"), "revision": .int(1)]),
            line(
                2, "serverApply",
                ["client": .string("c01"), "document": .string("d"), "opId": .string("c01:1"), "revision": .int(2)]),
            line(3, "ack", ["client": .string("c00"), "opId": .string("c00:1"), "revision": .int(1)]),
            line(3, "clientRevision", ["client": .string("c00"), "revision": .int(1)]),
            line(3, "clientRevision", ["client": .string("c01"), "revision": .int(1)]),
            line(4, "ack", ["client": .string("c01"), "opId": .string("c01:1"), "revision": .int(2)]),
            line(4, "clientRevision", ["client": .string("c01"), "revision": .int(2)]),
            line(5, "serverFinal", ["document": .string("d"), "text": .string("ab")]),
            line(5, "clientFinal", ["client": .string("c00"), "text": .string("ab")]),
            line(5, "clientFinal", ["client": .string("c01"), "text": .string("ba")]),
        ]
    }

    let documents = ["c00": "d", "c01": "d"]

    @Test func evidenceThatNamesATimeOrAnOpWins() {
        #expect(
            Timeline.firstDivergence(history, evidence: ["t=3 c01's own selection is 2"], documentOf: documents)?.row
                == 4)
        #expect(
            Timeline.firstDivergence(history, evidence: ["c01:1 applied twice on d"], documentOf: documents)?.row == 1)
    }

    @Test func elseTheDivergedClientsFirstConcurrentApply() {
        let d = Timeline.firstDivergence(
            history, evidence: ["c01 diverged from the server on d"], documentOf: documents)
        #expect(d?.row == 6)
        #expect(d?.why.contains("c01, whose text diverged") == true)
    }

    @Test func elseTheServersFirstTransformThenTheFinalState() {
        // Without c01's in-flight op on the client side, the server's transform of c01:1 is next.
        let noClientConcurrency = history.filter {
            !($0.type == "clientRevision" && $0.client == "c01" && $0.int("revision") == 1)
        }
        #expect(Timeline.firstDivergence(noClientConcurrency, evidence: [], documentOf: documents)?.row == 3)
        let sequential = noClientConcurrency.filter { $0.type == "clientFinal" || $0.type == "serverFinal" }
        let d = Timeline.firstDivergence(sequential, evidence: [], documentOf: documents)
        #expect(d?.row == 2)
        #expect(d?.why == "c01's final text differs from the server's")
        #expect(Timeline.firstDivergence(Array(history.prefix(9)), evidence: [], documentOf: documents) == nil)
    }
}
