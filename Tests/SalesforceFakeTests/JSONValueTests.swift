import Testing
@testable import SalesforceFake

@Suite struct JSONValueTests {
    @Test func serializesCompactlyInKeyOrder() {
        let value: JSONValue = .object([("b", 1), ("a", [true, nil, "x"]), ("c", .object([]))])
        #expect(value.serialized() == #"{"b":1,"a":[true,null,"x"],"c":{}}"#)
    }

    @Test func escapesStrings() {
        #expect(JSONValue.string("a\"b\\c\nd\te\u{01}é").serialized() == #""a\"b\\c\nd\te\u0001é""#)
    }

    @Test func numbersLikeSalesforce() {
        #expect(JSONValue.int(42).serialized() == "42")
        #expect(JSONValue.double(350_000.0).serialized() == "350000.0")
        #expect(JSONValue.double(350_000_000.0).serialized() == "3.5E8")
        #expect(JSONValue.double(25_000_000.0).serialized() == "2.5E7")
        #expect(JSONValue.double(1234.5).serialized() == "1234.5")
        #expect(JSONValue.double(0.1).serialized() == "0.1")
        #expect(JSONValue.double(0.0001).serialized() == "1.0E-4")
        #expect(JSONValue.double(-2.25).serialized() == "-2.25")
        #expect(JSONValue.double(0).serialized() == "0.0")
        #expect(JSONValue.double(9_999_999).serialized() == "9999999.0")
        #expect(JSONValue.double(.nan).serialized() == "null")
    }

    @Test func parsesKeepingKeyOrder() throws {
        let value = try JSONValue.parse(#" {"z": 1, "a": {"y": [1, 2.5, -3e2]}, "m": "\u00e9\ud83d\ude00\n"} "#)
        #expect(value.objectValue!.map(\.0) == ["z", "a", "m"])
        #expect(value["a"]?["y"] == .array([.int(1), .double(2.5), .double(-300)]))
        #expect(value["m"] == .string("é😀\n"))
        #expect(value["Z"] == .int(1))  // case-insensitive fallback
    }

    @Test func roundTrips() throws {
        let value: JSONValue = .object([
            ("s", "q\"\\"), ("n", .double(3.5E8)), ("i", -7), ("l", [.null, .bool(false)]),
        ])
        #expect(try JSONValue.parse(value.serialized()) == value)
    }

    @Test(arguments: [
        ("", "unexpected end of input", 0),
        ("{\"a\" 1}", "expected ':'", 5),
        ("[1,]", "unexpected character ']'", 3),
        ("01", "leading zero in number", 2),
        ("\"abc", "unterminated string", 4),
        ("{} x", "unexpected trailing characters", 3),
        ("tru", "unexpected end of input", 0),
        ("\"\\x\"", "invalid escape", 3),
    ])
    func rejectsBadJSON(text: String, message: String, offset: Int) {
        #expect(throws: JSONParseError(message: message, offset: offset)) { try JSONValue.parse(text) }
    }

    @Test func equalityAndHashingFollowKeyOrder() {
        let a: JSONValue = .object([("x", 1), ("y", 2)])
        let b: JSONValue = .object([("y", 2), ("x", 1)])
        #expect(a != b)
        #expect(Set([a, a, b]).count == 2)
    }
}
