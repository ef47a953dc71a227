/// How a cursor moves when text is inserted exactly at it.
///
/// All rules agree elsewhere: text inserted before the cursor shifts it right, deleted text
/// before it shifts it left, and a cursor inside a deleted range goes to the deletion start.
public enum CursorRule: String, Sendable, CaseIterable, Codable {
    /// ot.js `Selection.Range.transform`: any cursor at an insert point moves after the insert.
    case otjs
    /// PROTOCOL.md §3 for remote cursors: a cursor stays before text inserted at it, also when
    /// it was inside a range that the insert replaced (it goes to the deletion start, before the
    /// new text).
    case remote
    /// The author's own cursor: it moves after the author's own insert (how typing works).
    case own

    /// Whether a cursor exactly at an insert point ends up after the inserted text.
    @inlinable var movesPastInsertAtCursor: Bool { self != .remote }
}

/// A selection: `anchor` is where it started, `head` where the caret is. A collapsed
/// selection (`anchor == head`) is a plain cursor. Offsets count Unicode scalars.
public struct Selection: Hashable, Sendable, Codable {
    public var anchor: Int
    public var head: Int
    public init(anchor: Int, head: Int) {
        self.anchor = anchor
        self.head = head
    }
    /// A collapsed selection at `offset`.
    public init(cursor offset: Int) { self.init(anchor: offset, head: offset) }
    public var isCollapsed: Bool { anchor == head }
    /// True when the caret is before the anchor (the user selected leftwards).
    public var isBackward: Bool { head < anchor }
}

extension Operation {
    /// Moves a cursor at scalar offset `cursor` of the base document through this operation.
    public func transform(cursor: Int, rule: CursorRule) throws(OTError) -> Int {
        guard cursor >= 0, cursor <= baseLength else { throw .outOfBounds(offset: cursor, length: baseLength) }
        return transformUnchecked(cursor: cursor, rule: rule)
    }

    /// Moves both ends of a selection; its direction is kept because the mapping is monotone.
    public func transform(selection: Selection, rule: CursorRule) throws(OTError) -> Selection {
        Selection(
            anchor: try transform(cursor: selection.anchor, rule: rule),
            head: try transform(cursor: selection.head, rule: rule)
        )
    }

    /// The cursor transform without the bounds check, for hot loops that already know the bounds.
    @inlinable public func transformUnchecked(cursor: Int, rule: CursorRule) -> Int {
        var base = 0
        var shift = 0
        let after = rule.movesPastInsertAtCursor
        // Scalars inserted at `base` (canonical form puts an insert right before the delete
        // it sits next to): a remote cursor moved to that deletion start stays before them.
        var insertedAtBase = 0
        for component in components {
            if base > cursor { break }
            switch component {
            case .retain(let n):
                base += n
                insertedAtBase = 0
            case .insert(_, let count):
                if base < cursor || (base == cursor && after) {
                    shift += count
                    insertedAtBase = count
                }
            case .delete(let n):
                if base + n <= cursor {
                    shift -= n
                } else if base < cursor {
                    shift -= cursor - base  // inside the deleted range: to the deletion start
                    if !after { shift -= insertedAtBase }  // remote: before the text inserted there
                }
                base += n
                insertedAtBase = 0
            }
        }
        return cursor + shift
    }
}
