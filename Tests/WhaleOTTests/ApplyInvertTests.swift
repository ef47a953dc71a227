import Testing
import WhaleOT

@Suite("apply and invert")
struct ApplyInvertTests {
    @Test func appliesRetainInsertDelete() throws {
        #expect(try op(6, "w", 4).apply(to: "hello orld") == "hello world")
        #expect(try op(1, -3, 1).apply(to: "abcde") == "ae")
        #expect(try op("x", -2).apply(to: "ab") == "x")
        #expect(try Operation().apply(to: "") == "")
    }

    @Test func countsScalarsInEmojiCombiningMarksAndCJK() throws {
        // "e\u{301}" is one Character but two scalars: retaining 1 keeps only the "e".
        #expect(try op(1, -1, 1).apply(to: "e\u{301}x") == "ex")
        // 👩‍💻 is one grapheme of three scalars (woman, ZWJ, laptop).
        #expect(try op(1, "\u{200D}", 1).apply(to: "👩💻") == "👩‍💻")
        #expect(try op(1, -1, 1).apply(to: "中文字") == "中字")
    }

    @Test func rejectsOperationsThatDoNotSpanTheDocument() {
        #expect(throws: OTError.lengthMismatch(operationBase: 3, document: 2)) { try op(3).apply(to: "ab") }
        #expect(throws: OTError.lengthMismatch(operationBase: 1, document: 2)) { try op(1).apply(to: "ab") }
        #expect(throws: OTError.lengthMismatch(operationBase: 2, document: 1)) { try op(-2).apply(to: "a") }
    }

    @Test func invertRoundTrips() throws {
        let base = "héllo 👍 中"
        let o = op(1, -1, "e", 3, -2, "🙂", 2)
        let after = try o.apply(to: base)
        let inverse = try o.invert(base: base)
        #expect(try inverse.apply(to: after) == base)
        #expect(
            inverse.components == [
                .retain(1), .inserting("é"), .delete(1), .retain(3), .inserting(" 👍"), .delete(1), .retain(2),
            ])
    }

    @Test func invertRejectsAWrongBase() {
        #expect(throws: OTError.lengthMismatch(operationBase: 3, document: 2)) { try op(3).invert(base: "ab") }
    }
}
