import WhaleOT
import WhaleProtocol

/// An insert of `text` at scalar `position`, over a note of `length` scalars.
func insert(_ text: String, at position: Int) -> (Int) -> Operation {
    { length in Operation.replace(in: length, at: position, inserting: text) }
}

/// A delete of `count` scalars from `position`.
func delete(_ count: Int, at position: Int) -> (Int) -> Operation {
    { length in Operation.replace(in: length, at: position, deleting: count) }
}

/// The OT cases: concurrent edits in a fixed order, checked against the oracle and the
/// outcome PROTOCOL.md §2 states (the incoming op has tie priority; an insert inside a range
/// deleted concurrently survives at the deletion point; overlapping deletes happen once).
enum OTCases {
    static let nonASCIISuspects: [Fault] = [.utf8LengthTransform]

    static let all: [ConformCase] = [
        ConformCase(
            "ot.concurrent-insert-same-position",
            "Two inserts at one position, the second sent at the first's base revision: the incoming op has tie priority, so its text lands first (\"hello world\" + A@5 then B@5 = \"helloBA world\")."
        ) { c async throws(ConformFailure) in
            try await c.concurrentPair(
                text: "hello world", first: insert("A", at: 5), second: insert("B", at: 5), expected: "helloBA world")
        },
        ConformCase(
            "ot.concurrent-insert-start-and-end",
            "Concurrent inserts at both ends of the note shift nothing of each other."
        ) { c async throws(ConformFailure) in
            try await c.concurrentPair(
                text: "middle", first: insert("<", at: 0), second: insert(">", at: 6), expected: "<middle>")
        },
        ConformCase(
            "ot.insert-inside-concurrent-delete",
            "An insert inside a range deleted concurrently (delete first) survives at the deletion point."
        ) { c async throws(ConformFailure) in
            try await c.concurrentPair(
                text: "abcdefghij", first: delete(6, at: 2), second: insert("X", at: 5), expected: "abXij")
        },
        ConformCase(
            "ot.delete-over-concurrent-insert",
            "A delete sent over a range in which an insert was applied concurrently (insert first) keeps the insert."
        ) { c async throws(ConformFailure) in
            try await c.concurrentPair(
                text: "abcdefghij", first: insert("X", at: 5), second: delete(6, at: 2), expected: "abXij")
        },
        ConformCase(
            "ot.insert-at-delete-edges",
            "Inserts exactly at the start and the end of a range deleted concurrently survive, in place."
        ) { c async throws(ConformFailure) in
            try await c.concurrentPair(
                text: "abcdefghij", first: delete(3, at: 3), second: insert("X", at: 6), expected: "abcXghij")
            try await c.concurrentPair(
                text: "abcdefghij", first: delete(3, at: 3), second: insert("Y", at: 3), expected: "abcYghij")
        },
        ConformCase(
            "ot.overlapping-deletes",
            "Deletes of overlapping ranges remove their union once."
        ) { c async throws(ConformFailure) in
            try await c.concurrentPair(
                text: "abcdefghij", first: delete(4, at: 2), second: delete(4, at: 4), expected: "abij")
        },
        ConformCase(
            "ot.same-range-deletes",
            "Two deletes of the same range remove it once; the second becomes a no-op."
        ) { c async throws(ConformFailure) in
            try await c.concurrentPair(
                text: "abcdefghij", first: delete(4, at: 3), second: delete(4, at: 3), expected: "abchij")
        },
        ConformCase(
            "ot.replace-over-replace",
            "Two concurrent replacements of one word (delete + insert each) keep both inserts, the incoming first, and delete the word once."
        ) { c async throws(ConformFailure) in
            let first: (Int) -> Operation = { n in .replace(in: n, at: 4, deleting: 5, inserting: "quick") }
            let second: (Int) -> Operation = { n in .replace(in: n, at: 4, deleting: 5, inserting: "slow") }
            try await c.concurrentPair(
                text: "the brown fox", first: first, second: second, expected: "the slowquick fox")
        },
        ConformCase(
            "ot.non-ascii-astral",
            "Astral scalars (4 UTF-8 bytes, 2 UTF-16 units) count as one: an insert after a concurrent astral insert lands by scalars.",
            suspects: nonASCIISuspects
        ) { c async throws(ConformFailure) in
            try await c.concurrentPair(
                text: "a😀b𝄞c", first: insert("😺", at: 1), second: insert("Z", at: 4), expected: "a😺😀b𝄞Zc")
        },
        ConformCase(
            "ot.non-ascii-combining-marks",
            "Combining marks are scalars of their own: edits between a base letter and its mark, concurrent with an insert before them, land by scalars.",
            suspects: nonASCIISuspects
        ) { c async throws(ConformFailure) in
            // "e\u{301}" is é as two scalars; the second op deletes the acute and adds a diaeresis.
            let second: (Int) -> Operation = { n in .replace(in: n, at: 9, deleting: 1, inserting: "\u{308}") }
            try await c.concurrentPair(
                text: "cafe\u{301} ole\u{301}", first: insert("ñ", at: 0), second: second,
                expected: "ñcafe\u{301} ole\u{308}")
        },
        ConformCase(
            "ot.non-ascii-emoji-zwj",
            "Emoji ZWJ sequences are several scalars: a concurrent insert after one lands by scalars, never inside the sequence.",
            suspects: nonASCIISuspects
        ) { c async throws(ConformFailure) in
            // 👩‍💻 is 3 scalars (woman, ZWJ, laptop); 👨‍👩‍👧 is 5.
            try await c.concurrentPair(
                text: "👩‍💻 team", first: insert("👨‍👩‍👧 ", at: 0), second: insert("!", at: 8), expected: "👨‍👩‍👧 👩‍💻 team!")
        },
        ConformCase(
            "ot.non-ascii-crlf",
            "CRLF is two scalars (one grapheme): inserts between lines and between CR and LF, concurrent with a non-ASCII line insert, land by scalars.",
            suspects: nonASCIISuspects
        ) { c async throws(ConformFailure) in
            try await c.concurrentPair(
                text: "αβ\r\nγδ\r\n", first: insert("ε\r\n", at: 4), second: insert("|", at: 7),
                expected: "αβ\r\nε\r\nγδ\r|\n")
        },
        ConformCase(
            "ot.long-note",
            "A 10,800-scalar note: concurrent edits near its end are placed exactly, and a fresh join returns the whole text."
        ) { c async throws(ConformFailure) in
            let text = String(
                (0..<1200).map { i in "line \(String(i % 1000).padding(toLength: 3, withPad: " ", startingAt: 0))\n" }
                    .joined())
            let n = text.unicodeScalars.count
            try await c.concurrentPair(
                text: text, first: insert("[A]", at: n - 10), second: delete(5, at: n - 12),
                expected: String(text.unicodeScalars.prefix(n - 12)) + "[A]" + String(text.unicodeScalars.suffix(7)))
        },
        ConformCase(
            "ot.late-op-long-history",
            "An op sent 60 revisions behind the head (inserts, deletes and replaces meanwhile) is transformed over all of them, one at a time, as the oracle does."
        ) { c async throws(ConformFailure) in
            let edits: [(String) -> Operation] = (0..<60).map { i in
                { text in
                    let n = text.unicodeScalars.count
                    switch i % 3 {
                    case 0: return .replace(in: n, at: (i * 7) % (n + 1), inserting: "+\(i)")
                    case 1: return .replace(in: n, at: (i * 5) % max(n - 2, 1), deleting: min(2, n))
                    default: return .replace(in: n, at: (i * 3) % max(n - 1, 1), deleting: min(1, n), inserting: "~")
                    }
                }
            }
            try await c.lateOp(
                text: "The quick brown fox jumps over the lazy dog.", edits: edits, late: insert("[late]", at: 20))
        },
    ]
}
