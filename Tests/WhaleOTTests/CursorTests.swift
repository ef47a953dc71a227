import Testing
import WhaleOT

@Suite("cursor and selection transform")
struct CursorTests {
    let insertAt2 = op(2, "XY", 3)  // "abcde" → "abXYcde"

    @Test func cursorBeforeAnInsertStays() throws {
        for rule in CursorRule.allCases {
            #expect(try insertAt2.transform(cursor: 1, rule: rule) == 1)
            #expect(try insertAt2.transform(cursor: 0, rule: rule) == 0)
        }
    }

    @Test func cursorAfterAnInsertShifts() throws {
        for rule in CursorRule.allCases {
            #expect(try insertAt2.transform(cursor: 3, rule: rule) == 5)
            #expect(try insertAt2.transform(cursor: 5, rule: rule) == 7)
        }
    }

    @Test func cursorAtAnInsertFollowsTheRule() throws {
        #expect(try insertAt2.transform(cursor: 2, rule: .otjs) == 4)
        #expect(try insertAt2.transform(cursor: 2, rule: .own) == 4)
        #expect(try insertAt2.transform(cursor: 2, rule: .remote) == 2)
        // At the very start and end of the document too.
        #expect(try op("X", 2).transform(cursor: 0, rule: .remote) == 0)
        #expect(try op("X", 2).transform(cursor: 0, rule: .own) == 1)
        #expect(try op(2, "X").transform(cursor: 2, rule: .remote) == 2)
        #expect(try op(2, "X").transform(cursor: 2, rule: .otjs) == 3)
    }

    @Test func cursorInsideADeletedRangeGoesToTheDeletionStart() throws {
        let deleteBCD = op(1, -3, 1)  // "abcde" → "ae"
        for rule in CursorRule.allCases {
            #expect(try deleteBCD.transform(cursor: 0, rule: rule) == 0)
            #expect(try deleteBCD.transform(cursor: 1, rule: rule) == 1)  // at the start
            #expect(try deleteBCD.transform(cursor: 2, rule: rule) == 1)  // inside
            #expect(try deleteBCD.transform(cursor: 3, rule: rule) == 1)
            #expect(try deleteBCD.transform(cursor: 4, rule: rule) == 1)  // at the end
            #expect(try deleteBCD.transform(cursor: 5, rule: rule) == 2)  // after
        }
    }

    @Test func cursorInsideAReplacedRange() throws {
        let replaceBCD = op(1, "XY", -3, 1)  // "abcde" → "aXYe"
        // The author typed over the selection: its caret ends after what it typed.
        #expect(try replaceBCD.transform(cursor: 4, rule: .own) == 3)
        #expect(try replaceBCD.transform(cursor: 2, rule: .own) == 3)
        #expect(try replaceBCD.transform(cursor: 2, rule: .otjs) == 3)
        // A remote cursor inside the replaced text goes to the deletion start and stays
        // before the text inserted there, like a remote cursor at the start edge.
        #expect(try replaceBCD.transform(cursor: 1, rule: .remote) == 1)
        #expect(try replaceBCD.transform(cursor: 2, rule: .remote) == 1)
        #expect(try replaceBCD.transform(cursor: 3, rule: .remote) == 1)
        // After the replaced range: after the inserted text.
        #expect(try replaceBCD.transform(cursor: 5, rule: .remote) == 4)
    }

    @Test func cursorsCountScalars() throws {
        // "a👍é中" with "!" inserted after the emoji (scalar offset 2).
        let o = op(2, "!", 2)
        #expect(try o.transform(cursor: 3, rule: .remote) == 4)
        #expect(try o.apply(to: "a👍é中") == "a👍!é中")
        // Deleting the combining mark of "e\u{301}" moves a cursor after it by one scalar.
        #expect(try op(1, -1, 1).transform(cursor: 3, rule: .otjs) == 2)
    }

    @Test func selectionsKeepTheirDirection() throws {
        let forward = Selection(anchor: 1, head: 4)
        let backward = Selection(anchor: 4, head: 1)
        let o = op("XX", 5)
        #expect(try o.transform(selection: forward, rule: .remote) == Selection(anchor: 3, head: 6))
        let moved = try o.transform(selection: backward, rule: .remote)
        #expect(moved == Selection(anchor: 6, head: 3))
        #expect(moved.isBackward)
        // A selection swallowed by a delete collapses; it never flips.
        let collapsed = try op(1, -4).transform(selection: backward, rule: .own)
        #expect(collapsed == Selection(cursor: 1))
        #expect(collapsed.isCollapsed && !collapsed.isBackward)
    }

    @Test func outOfBoundsCursorsAreRejected() {
        #expect(throws: OTError.outOfBounds(offset: 6, length: 5)) { try insertAt2.transform(cursor: 6, rule: .otjs) }
        #expect(throws: OTError.outOfBounds(offset: -1, length: 5)) { try insertAt2.transform(cursor: -1, rule: .own) }
        #expect(throws: OTError.self) {
            try insertAt2.transform(selection: Selection(anchor: 0, head: 9), rule: .remote)
        }
    }
}
