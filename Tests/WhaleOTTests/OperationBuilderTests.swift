import Testing
import WhaleOT

@Suite("Operation builders keep canonical form")
struct OperationBuilderTests {
    @Test func mergesAdjacentComponentsOfOneKind() {
        var o = Operation()
        o.retain(2); o.retain(3); o.insert("a"); o.insert("b"); o.delete(1); o.delete(2)
        #expect(o.components == [.retain(5), .inserting("ab"), .delete(3)])
        #expect(o.baseLength == 8)
        #expect(o.targetLength == 7)
    }

    @Test func dropsEmptyComponents() {
        var o = Operation()
        o.retain(0); o.insert(""); o.delete(0); o.retain(-3); o.delete(-1)
        #expect(o.components.isEmpty)
        #expect(o.isNoop)
    }

    @Test func insertAfterDeleteIsPlacedBeforeIt() {
        var o = Operation()
        o.retain(1); o.delete(2); o.insert("x")
        #expect(o.components == [.retain(1), .inserting("x"), .delete(2)])
        o.delete(1); o.insert("y")
        #expect(o.components == [.retain(1), .inserting("xy"), .delete(3)])
    }

    @Test func insertCountsScalarsNotCharacters() {
        var o = Operation()
        o.insert("e\u{301}👍🏽中")  // 2 characters... 5 scalars
        #expect(o.targetLength == 5)
        #expect(o.baseLength == 0)
    }

    @Test func initFromComponentsCanonicalisesAndRejectsMalformed() throws {
        let o = try Operation([.retain(1), .delete(1), .inserting("a"), .retain(2), .retain(1)])
        #expect(o.components == [.retain(1), .inserting("a"), .delete(1), .retain(3)])
        #expect(throws: OTError.malformedComponent(index: 1, reason: "retain of 0")) {
            try Operation([.retain(1), .retain(0)])
        }
        #expect(throws: OTError.malformedComponent(index: 0, reason: "delete of -2")) {
            try Operation([.delete(-2)])
        }
        #expect(throws: OTError.malformedComponent(index: 0, reason: "empty insert")) {
            try Operation([.insert("", count: 0)])
        }
        #expect(throws: OTError.self) { try Operation([.insert("ab", count: 3)]) }
    }

    @Test func replaceBuildsASpanningEdit() {
        let o = Operation.replace(in: 10, at: 3, deleting: 2, inserting: "xy")
        #expect(o.components == [.retain(3), .inserting("xy"), .delete(2), .retain(5)])
        #expect(o.baseLength == 10)
        #expect(o.description == #"[r3, i"xy", d2, r5]"#)
    }
}
