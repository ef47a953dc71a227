import Foundation
import Testing
import WhaleOT

@Suite("wire (n/s) and ot.js codecs")
struct CodecTests {
    @Test func decodesThePROTOCOLExample() throws {
        let o = try WireOperation(n: [6, 0, 4], s: ["", "w", ""]).operation()
        #expect(o == op(6, "w", 4))
        #expect(o.wire == WireOperation(n: [6, 0, 4], s: ["", "w", ""]))
    }

    @Test func wireDeleteIsNegative() throws {
        let o = try WireOperation(n: [2, -3, 0], s: ["", "", "é"]).operation()
        #expect(o.components == [.retain(2), .inserting("é"), .delete(3)])
        #expect(o.wire == WireOperation(n: [2, 0, -3], s: ["", "é", ""]))
    }

    @Test func wireRejectsMalformedInputPrecisely() {
        #expect(throws: OTError.arrayLengthMismatch(n: 2, s: 1)) { try WireOperation(n: [1, 2], s: [""]).operation() }
        #expect(throws: OTError.malformedComponent(index: 1, reason: "n is 0 and s is empty (an empty insert)")) {
            try WireOperation(n: [1, 0], s: ["", ""]).operation()
        }
        #expect(throws: OTError.malformedComponent(index: 0, reason: "retain 3 carries text \"x\"")) {
            try WireOperation(n: [3], s: ["x"]).operation()
        }
        #expect(throws: OTError.malformedComponent(index: 0, reason: "delete 3 carries text \"x\"")) {
            try WireOperation(n: [-3], s: ["x"]).operation()
        }
    }

    @Test func otjsJSONRoundTrips() throws {
        let o = op(3, "👍é", -2, 1)
        let json = String(decoding: try JSONEncoder().encode(o), as: UTF8.self)
        #expect(json == #"[3,"👍é",-2,1]"#)
        #expect(try JSONDecoder().decode(Operation.self, from: Data(json.utf8)) == o)
    }

    @Test func otjsRejectsZeroAndEmptyInsert() {
        #expect(throws: OTError.malformedComponent(index: 1, reason: "0 is neither a retain nor a delete")) {
            try Operation(otjs: [.number(1), .number(0)])
        }
        #expect(throws: OTError.malformedComponent(index: 0, reason: "empty insert \"\"")) {
            try Operation(otjs: [.text("")])
        }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Operation.self, from: Data("[1, true]".utf8)) }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Operation.self, from: Data("[1, 0]".utf8)) }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Operation.self, from: Data("[1.5]".utf8)) }
    }

    @Test func otjsDecodingCanonicalises() throws {
        let o = try Operation(otjs: [.number(1), .number(1), .number(-1), .text("a"), .text("b")])
        #expect(o.otjs == [.number(2), .text("ab"), .number(-1)])
    }

    @Test func wireJSONUsesNAndSKeys() throws {
        let decoded = try JSONDecoder().decode(WireOperation.self, from: Data(#"{"n":[1,0],"s":["","x"]}"#.utf8))
        #expect(try decoded.operation() == op(1, "x"))
        let reencoded = try JSONDecoder().decode(WireOperation.self, from: JSONEncoder().encode(op(1, "x").wire))
        #expect(reencoded == decoded)
    }
}
