import Testing
@testable import WhaleReports

@Suite struct HistoryLineTests {
    @Test func parsesScalarsEscapesAndBooleans() throws {
        let text =
            #"{"t":12,"type":"clientFinal","client":"c01","text":"a\"b\\c\n\u00e9\ud83d\ude00","revision":3,"connected":true,"anchor":null,"x":[1,{"y":"]"}]}"#
            + "\n"
        let lines = try HistoryLine.parse(text, file: "h.jsonl")
        #expect(lines.count == 1)
        let l = lines[0]
        #expect(l.t == 12 && l.type == "clientFinal" && l.client == "c01")
        #expect(l.string("text") == "a\"b\\c\né😀")
        #expect(l.int("revision") == 3)
        #expect(l.bool("connected") == true)
        #expect(l.fields["anchor"] == .null)
        #expect(l.fields["x"] == .null)
    }

    @Test func aBadLineNamesTheFileAndLine() {
        #expect(
            throws: ReportError.corrupt("h.jsonl:2: not a history line (a flat JSON object with \"t\" and \"type\")")
        ) {
            try HistoryLine.parse("{\"t\":0,\"type\":\"heal\"}\n{\"type\":\"heal\"}\n", file: "h.jsonl")
        }
        #expect(throws: ReportError.self) { try HistoryLine.parse("{\"t\":0,\"type\":\"heal\"", file: "h.jsonl") }
        #expect(throws: ReportError.self) { try HistoryLine.parse("not json\n", file: "h.jsonl") }
    }
}
