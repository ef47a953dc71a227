import Testing
import WhaleOT

/// Lengths come from the network (docChange `n`) and from files: absurd values must be
/// rejected with an error, never trap the process on integer overflow.
@Suite("absurd lengths are errors, not traps")
struct OverflowTests {
    @Test func wireLengthsThatOverflow() {
        #expect(throws: OTError.malformedComponent(index: 1, reason: "lengths add up to more than Int.max")) {
            try WireOperation(n: [Int.max, 1], s: ["", ""]).operation()
        }
        #expect(throws: OTError.malformedComponent(index: 0, reason: "delete of Int.min")) {
            try WireOperation(n: [Int.min], s: [""]).operation()
        }
    }

    @Test func otjsLengthsThatOverflow() {
        #expect(throws: OTError.malformedComponent(index: 1, reason: "lengths add up to more than Int.max")) {
            try Operation(otjs: [.number(Int.max), .number(-1)])
        }
        #expect(throws: OTError.malformedComponent(index: 0, reason: "delete of Int.min")) {
            try Operation(otjs: [.number(Int.min)])
        }
    }

    @Test func componentLengthsThatOverflow() {
        #expect(throws: OTError.malformedComponent(index: 1, reason: "lengths add up to more than Int.max")) {
            try Operation([.retain(Int.max), .delete(Int.max)])
        }
    }

    @Test func hugeReplaceIsOutOfBounds() {
        var doc = TextDocument("abc")
        #expect(throws: OTError.self) { try doc.replace(at: 1, deleting: Int.max, inserting: "") }
        #expect(doc.text == "abc")
    }
}
