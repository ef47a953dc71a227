/// A unit in which editors count text positions. whalesim counts Unicode scalars; the other
/// units exist for editors (UTF-16 in AppKit and JavaScript) and for faults that reproduce the
/// original Whaler's unit mismatches (UTF-8 bytes in its transform, grapheme clusters in its client).
public enum TextUnit: String, Sendable, CaseIterable, Codable {
    case scalar, utf8, utf16, grapheme

    /// The length of `text` in this unit.
    public func length(of text: String) -> Int {
        switch self {
        case .scalar: text.unicodeScalars.count
        case .utf8: text.utf8.count
        case .utf16: text.utf16.count
        case .grapheme: text.count
        }
    }

    /// The string index `offset` units into `text`, or nil past the end.
    public func index(_ offset: Int, in text: String) -> String.Index? {
        guard offset >= 0 else { return nil }
        switch self {
        case .scalar: return text.unicodeScalars.index(text.startIndex, offsetBy: offset, limitedBy: text.endIndex)
        case .utf8: return text.utf8.index(text.startIndex, offsetBy: offset, limitedBy: text.endIndex)
        case .utf16: return text.utf16.index(text.startIndex, offsetBy: offset, limitedBy: text.endIndex)
        case .grapheme: return text.index(text.startIndex, offsetBy: offset, limitedBy: text.endIndex)
        }
    }

    /// The offset of `index` in this unit. An index inside a unit (half a surrogate pair, the
    /// middle of a grapheme cluster) counts the whole units before it: it rounds down.
    public func offset(of index: String.Index, in text: String) -> Int {
        switch self {
        case .scalar:
            return wholeUnits(before: index, in: text.unicodeScalars)
        case .utf8:
            return text.utf8.distance(from: text.startIndex, to: index)
        case .utf16:
            return text.utf16.distance(from: text.startIndex, to: index)
        case .grapheme:
            return wholeUnits(before: index, in: text)
        }
    }
}

/// Counts the elements of `view` that end at or before `index` (rounds a mid-element index down).
private func wholeUnits<C: BidirectionalCollection>(before index: String.Index, in view: C) -> Int
where C.Index == String.Index {
    var count = 0
    var current = view.startIndex
    while current < view.endIndex {
        let next = view.index(after: current)
        if next > index { break }
        count += 1
        current = next
    }
    return count
}

extension String {
    /// Converts an offset between units. Throws when `offset` is past the end in `from` units.
    ///
    /// ```swift
    /// try "a👍b".convertOffset(2, from: .scalar, to: .utf16)   // 3
    /// ```
    public func convertOffset(_ offset: Int, from: TextUnit, to: TextUnit) throws(OTError) -> Int {
        guard let index = from.index(offset, in: self) else {
            throw .outOfBounds(offset: offset, length: from.length(of: self))
        }
        return to.offset(of: index, in: self)
    }
}
