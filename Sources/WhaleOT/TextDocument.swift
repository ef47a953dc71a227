/// A text document stored as a gap buffer of Unicode scalar values.
///
/// Why a gap buffer: collaborative note editing is local (typing, then deleting a little
/// behind the caret), and a gap buffer makes a local edit a handful of stores. Replaying the
/// 259,778-edit `automerge-paper` trace and random-position edits on large notes were measured
/// against a chunked rope in `whalesim bench ot` (docs/decisions/0001-ot-document-gap-buffer.md has the
/// figures). Memory is 4 bytes per scalar plus the gap, so a 1,000,000-scalar note fits in about 5 MB.
///
/// ```swift
/// var doc = TextDocument("hello world")
/// try doc.apply(Operation.replace(in: doc.count, at: 5, inserting: ","))
/// doc.text   // "hello, world"
/// ```
public struct TextDocument: Sendable {
    @usableFromInline var storage: [UInt32]
    @usableFromInline var gapStart: Int
    @usableFromInline var gapEnd: Int

    /// An empty document.
    public init() {
        storage = []
        gapStart = 0
        gapEnd = 0
    }

    /// A document holding `text`.
    public init(_ text: String) {
        storage = text.unicodeScalars.map(\.value)
        gapStart = storage.count
        gapEnd = storage.count
    }

    /// Length in Unicode scalars.
    @inlinable public var count: Int { storage.count - (gapEnd - gapStart) }

    /// Bytes held by the storage buffer, gap included (what `whalesim bench ot` reports).
    public var storageBytes: Int { storage.capacity * MemoryLayout<UInt32>.stride }

    /// The whole text.
    public var text: String {
        var scalars = String.UnicodeScalarView()
        for i in 0..<gapStart { scalars.append(Unicode.Scalar(storage[i])!) }
        for i in gapEnd..<storage.count { scalars.append(Unicode.Scalar(storage[i])!) }
        return String(scalars)
    }

    /// The scalar at `offset` (0..<count).
    @inlinable public subscript(offset: Int) -> Unicode.Scalar {
        let physical = offset < gapStart ? offset : offset + (gapEnd - gapStart)
        return Unicode.Scalar(storage[physical])!
    }

    /// The text of the scalars in `range`.
    public func text(in range: Range<Int>) -> String {
        var scalars = String.UnicodeScalarView()
        for offset in range { scalars.append(self[offset]) }
        return String(scalars)
    }

    /// Deletes `deleting` scalars at `position`, then inserts `text` there.
    public mutating func replace(at position: Int, deleting: Int, inserting text: String) throws(OTError) {
        // `deleting <= count - position`, not `position + deleting <= count`: a huge `deleting`
        // must be an error, not an overflow trap.
        guard position >= 0, position <= count, deleting >= 0, deleting <= count - position else {
            let end = position.addingReportingOverflow(deleting)
            throw .outOfBounds(
                offset: position < 0 || position > count ? position : (end.overflow ? .max : end.partialValue),
                length: count)
        }
        moveGap(to: position)
        gapEnd += deleting
        insertAtGap(text)
    }

    /// Applies an operation in place. The document is unchanged if the operation does not span it.
    public mutating func apply(_ operation: Operation) throws(OTError) {
        guard operation.baseLength == count else {
            throw .lengthMismatch(operationBase: operation.baseLength, document: count)
        }
        var position = 0
        for component in operation.components {
            switch component {
            case .retain(let n):
                position += n
            case .insert(let text, let n):
                moveGap(to: position)
                reserveGap(n)
                insertAtGap(text)
                position += n
            case .delete(let n):
                moveGap(to: position)
                gapEnd += n
            }
        }
    }

    // MARK: Gap management

    @inlinable mutating func moveGap(to position: Int) {
        if position == gapStart { return }
        let gap = gapEnd - gapStart
        storage.withUnsafeMutableBufferPointer { buffer in
            let base = buffer.baseAddress!
            if position < gapStart {
                // Move [position, gapStart) to the end of the gap.
                let n = gapStart - position
                (base + position + gap).update(from: base + position, count: n)
            } else {
                // Move [gapEnd, gapEnd + (position - gapStart)) to the start of the gap.
                let n = position - gapStart
                (base + gapStart).update(from: base + gapEnd, count: n)
            }
        }
        gapStart = position
        gapEnd = position + gap
    }

    @inlinable mutating func reserveGap(_ needed: Int) {
        let gap = gapEnd - gapStart
        guard gap < needed else { return }
        let tail = storage.count - gapEnd
        let newCapacity = max(storage.count * 3 / 2, storage.count + needed - gap + 64)
        var grown = [UInt32](repeating: 0, count: newCapacity)
        let newGapEnd = newCapacity - tail
        grown.withUnsafeMutableBufferPointer { dst in
            storage.withUnsafeBufferPointer { src in
                dst.baseAddress!.update(from: src.baseAddress!, count: gapStart)
                if tail > 0 { (dst.baseAddress! + newGapEnd).update(from: src.baseAddress! + gapEnd, count: tail) }
            }
        }
        storage = grown
        gapEnd = newGapEnd
    }

    @inlinable mutating func insertAtGap(_ text: String) {
        for scalar in text.unicodeScalars {
            if gapStart == gapEnd { reserveGap(1) }
            storage[gapStart] = scalar.value
            gapStart += 1
        }
    }
}

extension TextDocument: Equatable {
    public static func == (lhs: TextDocument, rhs: TextDocument) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for i in 0..<lhs.count where lhs[i] != rhs[i] { return false }
        return true
    }
}
