import Testing
import WhaleOT

@Suite("TextDocument (gap buffer)")
struct TextDocumentTests {
    @Test func replaceInsertsAndDeletesAnywhere() throws {
        var doc = TextDocument("hello world")
        try doc.replace(at: 5, deleting: 0, inserting: ",")
        #expect(doc.text == "hello, world")
        try doc.replace(at: 0, deleting: 1, inserting: "J")
        try doc.replace(at: doc.count, deleting: 0, inserting: "!")
        try doc.replace(at: 7, deleting: 5, inserting: "👩‍💻")
        #expect(doc.text == "Jello, 👩‍💻!")
        #expect(doc.count == 11)
        #expect(doc[7] == "👩")
        #expect(doc.text(in: 7..<10) == "👩‍💻")
    }

    @Test func replaceRejectsOutOfBounds() {
        var doc = TextDocument("abc")
        #expect(throws: OTError.self) { try doc.replace(at: 4, deleting: 0, inserting: "x") }
        #expect(throws: OTError.self) { try doc.replace(at: 2, deleting: 2, inserting: "") }
        #expect(throws: OTError.self) { try doc.replace(at: -1, deleting: 0, inserting: "") }
        #expect(throws: OTError.self) { try doc.replace(at: 1, deleting: -1, inserting: "") }
        #expect(doc.text == "abc")
    }

    @Test func applyMatchesOperationApply() throws {
        var doc = TextDocument("e\u{301}中👍 abc")
        let o = op(1, "X", -2, 2, "yz", -2, 1)
        try doc.apply(o)
        #expect(doc.text == (try o.apply(to: "e\u{301}中👍 abc")))
    }

    @Test func applyRejectsAnOperationThatDoesNotSpanItAndLeavesItUnchanged() {
        var doc = TextDocument("abc")
        #expect(throws: OTError.lengthMismatch(operationBase: 4, document: 3)) { try doc.apply(op(4)) }
        #expect(doc.text == "abc")
    }

    @Test func largeInsertsGrowTheBuffer() throws {
        var doc = TextDocument()
        let chunk = String(repeating: "ab👍", count: 1000)
        for i in 0..<20 { try doc.replace(at: i * 7, deleting: 0, inserting: chunk) }
        #expect(doc.count == 60_000)
        #expect(doc == TextDocument(doc.text))
        #expect(TextDocument("ab") != TextDocument("ac"))
    }
}
