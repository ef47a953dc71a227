import Testing
import WhaleOT

@Suite("compose")
struct ComposeTests {
    @Test func composeEqualsApplyingInSequence() throws {
        let doc = "héllo"
        let a = op(1, -1, "e", 3, " wörld")
        let b = op(6, -2, "🙂", 3)
        let ab = try Operation.compose(a, b)
        #expect(try ab.apply(to: doc) == b.apply(to: a.apply(to: doc)))
        #expect(try ab.apply(to: doc) == "hello 🙂rld")
    }

    @Test func deleteOfInsertedTextCancels() throws {
        let ab = try Operation.compose(op(1, "xyz", 1), op(2, -2, 1))
        #expect(ab == op(1, "x", 1))
        #expect(try Operation.compose(op("ab"), op(-2)) == Operation())
    }

    @Test func splitsInsertsOnScalars() throws {
        // The insert "👍é" is two scalars; b keeps the first, deletes the second.
        let ab = try Operation.compose(op("👍é"), op(1, -1))
        #expect(ab == op("👍"))
        let ab2 = try Operation.compose(op("e\u{301}"), op(1, "!", 1))
        #expect(ab2 == op("e!\u{301}"))
    }

    @Test func rejectsOperationsThatDoNotChain() {
        #expect(throws: OTError.self) { try Operation.compose(op(2, "x"), op(2)) }
    }
}
