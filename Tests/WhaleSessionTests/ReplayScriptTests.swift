import Foundation
import Testing
@testable import WhaleSession

/// A session as a user's steps: what the person did at their caret, the requests they made,
/// and what a replay leaves out, with why.
@Suite struct ReplayScriptTests {
    func op(_ n: [Int], _ s: [String]) -> [Step] {
        ReplayScript.edits(n: n.map { .int($0) }, s: s.map { .string($0) })
    }
    typealias Step = ReplayScript.Step

    @Test func anOpBecomesEditsInOrder() {
        // retain 6, insert "w", retain 4: one insert at 6.
        #expect(op([6, 0, 4], ["", "w", ""]) == [.edit(position: 6, delete: 0, insert: "w")])
        // delete 2 then insert "ab" at the same place: one replacement.
        #expect(op([1, -2, 0, 3], ["", "", "ab", ""]) == [.edit(position: 1, delete: 2, insert: "ab")])
        // Two places: the second position counts the first edit as made (é is one scalar).
        #expect(
            op([0, 5, -1, 2], ["é", "", "", ""])
                == [.edit(position: 0, delete: 0, insert: "é"), .edit(position: 6, delete: 1, insert: "")])
        #expect(op([3], [""]).isEmpty)
    }

    func event(_ t: Int, _ kind: SessionEvent.Kind, _ fields: (inout SessionEvent) -> Void = { _ in }) -> SessionEvent {
        var e = SessionEvent(t: t, session: "s1", connection: "c1", kind: kind)
        fields(&e)
        return e
    }

    @Test func aSessionsStepsKindsAndWhatIsLeftOut() {
        let recording = SessionRecording(
            header: .init(source: "record"),
            events: [
                event(100, .http) {
                    $0.method = "POST"; $0.path = "/api/user/login"; $0.durationMs = 9
                },
                event(150, .http) {
                    $0.method = "POST"; $0.path = "/query"; $0.durationMs = 4
                    $0.request = .object([
                        "operationName": .string("Board"), "query": .string("query Board { accounts { id } }"),
                    ])
                },
                event(200, .wsOpen) { $0.path = "/socket?protocol=2" },
                event(210, .wsSend) {
                    $0.data = #"{"type":"resourceConnection","messageId":"j","data":{"resourceId":"acc-1"}}"#
                },
                event(220, .wsReceive) { $0.data = #"{"type":"resourceConnectionConf","messageId":"j","data":{}}"# },
                event(300, .wsSend) {
                    $0.data =
                        #"{"type":"docChange","messageId":"e1","data":{"resourceId":"acc-1","rev":0,"n":[0],"s":["hi"]}}"#
                },
                event(400, .wsSend) {
                    $0.data = #"{"type":"cursorUpdate","data":{"resourceId":"acc-1","rev":1,"anchor":0,"head":2}}"#
                },
                event(450, .http) {
                    $0.method = "POST"; $0.path = "/api/user/refresh"
                },
                event(500, .wsSend) { $0.data = "not json" },
                event(600, .http) {
                    $0.target = .salesforce; $0.method = "GET";
                    $0.path = "/services/data/v59.0/query?q=SELECT+Id+FROM+Account"
                },
            ])
        let script = ReplayScript.make(recording, session: "s1")
        #expect(script.noteAccount == "acc-1" && script.spanMs == 500)
        #expect(script.steps.map(\.atMs) == [50, 200, 300])
        #expect(script.steps.map(\.kind) == ["graphql Board", "ws docChange", "ws cursorUpdate"])
        #expect(script.steps[1].step == .edit(position: 0, delete: 0, insert: "hi"))
        #expect(script.steps[2].step == .select(anchor: 0, head: 2))
        #expect(
            script.recordedMix == [
                "login": 1, "graphql Board": 1, "ws open": 1, "ws resourceConnection": 1, "ws docChange": 1,
                "ws cursorUpdate": 1, "REST POST /api/user/refresh": 1, "ws other": 1, "salesforce query": 1,
            ])
        #expect(Set(script.notReplayed.keys) == ["REST POST /api/user/refresh", "ws other", "salesforce query"])
        #expect(script.notReplayed["salesforce query"]?.why.contains("Salesforce") == true)
        #expect(script.recordedLatencies["login"] == [9])
    }

    @Test func requestKindsNameWhatWasAsked() {
        #expect(
            RequestKind.graphQL(.object(["query": .string("mutation { saveTask(input: {}) { id } }")]))
                == "graphql mutation saveTask")
        #expect(RequestKind.graphQL(.object(["query": .string("{ accounts { id } }")])) == "graphql query accounts")
        #expect(
            RequestKind.genericPath("/services/data/v59.0/sobjects/Account/0015g00000AcmeA01")
                == "/services/data/#/sobjects/Account/#")
    }

    /// A HAR that is not one, or an entry that lacks what a HAR entry has, is refused saying what.
    @Test func badHARFilesAreRefusedSayingWhat() {
        func problem(_ text: String) -> String? {
            do {
                _ = try HARImport.recording(from: Data(text.utf8), source: "x.har")
                return nil
            } catch { return error.message }
        }
        #expect(problem("not json") == "x.har: not JSON (a HAR file is one JSON object with a \"log\")")
        #expect(problem(#"{"log": {}}"#) == "x.har: no log.entries: not a HAR file")
        #expect(problem(#"{"log": {"entries": [{"request": {}}]}}"#)?.contains("entry 0 lacks startedDateTime") == true)
        let ws = #"""
            {"log": {"entries": [{"startedDateTime": "2026-11-29T08:00:00.000Z", "request": {"method": "GET", "url": "ws://h/socket"},
             "response": {"status": 101}, "_webSocketMessages": [{"type": "send", "data": "x"}]}]}}
            """#
        #expect(problem(ws)?.contains("a websocket message without type, time or data") == true)
        #expect(problem(#"{"log": {"entries": []}}"#) == nil)
    }
}
