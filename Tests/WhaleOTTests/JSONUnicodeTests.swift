import Testing
import WhaleOT

/// Raw JSON text must be well-formed Unicode before a parser sees it: parsers differ (json-c
/// turns a lone surrogate escape into U+FFFD and passes invalid UTF-8 through).
@Suite("JSON text Unicode validation")
struct JSONUnicodeTests {
    @Test func acceptsWellFormedText() throws {
        try JSONUnicode.validate(Array(#"{"s":["é👍", "\ud83d\ude00", "\\ud800 is text", "\n"]}"#.utf8))
        try JSONUnicode.validate([UInt8]())
    }

    @Test func rejectsInvalidUTF8WithItsOffset() {
        #expect(throws: OTError.illFormedUnicode("invalid UTF-8 at byte 2")) {
            try JSONUnicode.validate([0x22, 0x61, 0xFF, 0x22])
        }
        // A truncated 4-byte sequence.
        #expect(throws: OTError.illFormedUnicode("invalid UTF-8 at byte 1")) {
            try JSONUnicode.validate([0x22, 0xF0, 0x9F, 0x22])
        }
    }

    @Test func rejectsLoneSurrogateEscapes() {
        #expect(throws: OTError.illFormedUnicode(#"lone surrogate escape \ud800 at byte 1"#)) {
            try JSONUnicode.validate(Array(#""\ud800""#.utf8))
        }
        #expect(throws: OTError.illFormedUnicode(#"lone surrogate escape \uDC00 at byte 2"#)) {
            try JSONUnicode.validate(Array(#""x\uDC00""#.utf8))
        }
        // A high surrogate followed by something other than a low one.
        #expect(throws: OTError.illFormedUnicode(#"lone surrogate escape \ud83d at byte 1"#)) {
            try JSONUnicode.validate(Array(#""\ud83d\u0041""#.utf8))
        }
    }
}
