import Testing
import WhaleOT

@Suite("offset conversion between scalars, UTF-8, UTF-16 and graphemes")
struct TextUnitTests {
    @Test func lengths() {
        let text = "a👍é\u{301}中👩‍💻"  // a, 👍, é, ◌́, 中, 👩 ZWJ 💻
        #expect(TextUnit.scalar.length(of: text) == 8)
        #expect(TextUnit.utf16.length(of: text) == 1 + 2 + 1 + 1 + 1 + 5)
        #expect(TextUnit.utf8.length(of: text) == 1 + 4 + 2 + 2 + 3 + 11)
        #expect(TextUnit.grapheme.length(of: text) == 5)
    }

    @Test func surrogatePairs() throws {
        #expect(try "a👍b".convertOffset(2, from: .scalar, to: .utf16) == 3)
        #expect(try "a👍b".convertOffset(3, from: .utf16, to: .scalar) == 2)
        #expect(try "a👍b".convertOffset(2, from: .scalar, to: .utf8) == 5)
        // Half a surrogate pair rounds down to the whole scalars before it.
        #expect(try "a👍b".convertOffset(2, from: .utf16, to: .scalar) == 1)
    }

    @Test func zwjSequencesAndCombiningMarks() throws {
        let family = "x👩‍💻y"
        #expect(try family.convertOffset(4, from: .scalar, to: .grapheme) == 2)
        #expect(try family.convertOffset(2, from: .grapheme, to: .scalar) == 4)
        #expect(try family.convertOffset(2, from: .grapheme, to: .utf16) == 6)
        // Mid-cluster rounds down to the clusters before it.
        #expect(try family.convertOffset(2, from: .scalar, to: .grapheme) == 1)
        #expect(try "e\u{301}x".convertOffset(1, from: .grapheme, to: .scalar) == 2)
        #expect(try "e\u{301}x".convertOffset(1, from: .scalar, to: .grapheme) == 0)
    }

    @Test func cjkIsThreeUTF8BytesOneUTF16Unit() throws {
        #expect(try "中文".convertOffset(1, from: .scalar, to: .utf8) == 3)
        #expect(try "中文".convertOffset(1, from: .scalar, to: .utf16) == 1)
        #expect(try "中文".convertOffset(6, from: .utf8, to: .scalar) == 2)
    }

    /// Every offset of "a👍b" in every unit, converted to every unit: offsets inside a unit
    /// (inside the emoji's 4 UTF-8 bytes or 2 UTF-16 units) round down to the whole units before.
    @Test(arguments: [
        (TextUnit.utf8, TextUnit.scalar, [0, 1, 1, 1, 1, 2, 3]),
        (.utf8, .utf16, [0, 1, 1, 1, 1, 3, 4]),
        (.utf8, .grapheme, [0, 1, 1, 1, 1, 2, 3]),
        (.utf16, .scalar, [0, 1, 1, 2, 3]),
        (.utf16, .utf8, [0, 1, 1, 5, 6]),
        (.utf16, .grapheme, [0, 1, 1, 2, 3]),
        (.scalar, .utf8, [0, 1, 5, 6]),
        (.scalar, .utf16, [0, 1, 3, 4]),
        (.grapheme, .utf16, [0, 1, 3, 4]),
    ])
    func everyOffsetRoundsDown(from: TextUnit, to: TextUnit, expected: [Int]) throws {
        let text = "a👍b"
        let converted = try (0...from.length(of: text)).map { try text.convertOffset($0, from: from, to: to) }
        #expect(converted == expected)
    }

    @Test func endOfTextAndOutOfBounds() throws {
        for unit in TextUnit.allCases {
            #expect(try "a👍".convertOffset(unit.length(of: "a👍"), from: unit, to: .scalar) == 2)
            #expect(try "a👍".convertOffset(0, from: unit, to: .utf8) == 0)
        }
        #expect(throws: OTError.outOfBounds(offset: 3, length: 2)) {
            try "a👍".convertOffset(3, from: .scalar, to: .utf16)
        }
        #expect(throws: OTError.self) { try "a👍".convertOffset(-1, from: .utf16, to: .scalar) }
    }
}
