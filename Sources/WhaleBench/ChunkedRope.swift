/// The alternative document representation measured against `TextDocument`'s gap buffer in
/// `whalesim bench ot`: a flat rope of chunks (at most `maxChunk` scalars each) with a cached
/// "finger" at the last chunk touched, so local edits do not rescan from the start.
///
/// Kept in the bench, not in the library: it exists to make the choice of representation a
/// measurement (docs/decisions/0001-ot-document-gap-buffer.md), not to be used.
package struct ChunkedRope {
    package static let maxChunk = 1024
    private(set) var chunks: [[UInt32]] = [[]]
    private(set) var count = 0
    // The finger: chunk index and the document offset where that chunk starts.
    private var fingerChunk = 0
    private var fingerStart = 0

    package init() {}

    package init(_ text: String) {
        chunks = []
        var current: [UInt32] = []
        current.reserveCapacity(Self.maxChunk)
        for scalar in text.unicodeScalars {
            current.append(scalar.value)
            if current.count == Self.maxChunk / 2 {
                chunks.append(current)
                current = []
                current.reserveCapacity(Self.maxChunk)
            }
            count += 1
        }
        chunks.append(current)
    }

    /// Moves the finger to the chunk holding `position` (the earlier chunk at a boundary).
    private mutating func seek(_ position: Int) {
        while position < fingerStart {
            fingerChunk -= 1
            fingerStart -= chunks[fingerChunk].count
        }
        while position > fingerStart + chunks[fingerChunk].count, fingerChunk + 1 < chunks.count {
            fingerStart += chunks[fingerChunk].count
            fingerChunk += 1
        }
    }

    /// Deletes `deleting` scalars at `position`, then inserts `text` there.
    package mutating func replace(at position: Int, deleting: Int, inserting text: String) {
        precondition(position >= 0 && deleting >= 0 && position + deleting <= count)
        if deleting > 0 { delete(at: position, count: deleting) }
        if !text.isEmpty { insert(text, at: position) }
    }

    private mutating func delete(at position: Int, count n: Int) {
        var remaining = n
        seek(position)
        // If the position is at the end of the finger chunk, start in the next one.
        if position == fingerStart + chunks[fingerChunk].count, fingerChunk + 1 < chunks.count {
            fingerStart += chunks[fingerChunk].count
            fingerChunk += 1
        }
        var chunk = fingerChunk
        var offset = position - fingerStart
        while remaining > 0 {
            let take = min(remaining, chunks[chunk].count - offset)
            chunks[chunk].removeSubrange(offset..<(offset + take))
            remaining -= take
            if chunks[chunk].isEmpty && chunks.count > 1 {
                chunks.remove(at: chunk)
            } else {
                chunk += 1
            }
            offset = 0
        }
        count -= n
        // Chunks before the finger are unchanged, but the finger chunk may be gone.
        if fingerChunk >= chunks.count {
            fingerChunk = chunks.count - 1; fingerStart = count - chunks[fingerChunk].count
        }
    }

    private mutating func insert(_ text: String, at position: Int) {
        seek(position)
        let offset = position - fingerStart
        var scalars: [UInt32] = []
        scalars.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars { scalars.append(scalar.value) }
        chunks[fingerChunk].insert(contentsOf: scalars, at: offset)
        count += scalars.count
        if chunks[fingerChunk].count > Self.maxChunk {
            // Split into halves; the finger stays on the first half.
            let full = chunks[fingerChunk]
            let half = full.count / 2
            chunks[fingerChunk] = Array(full[..<half])
            chunks.insert(Array(full[half...]), at: fingerChunk + 1)
        }
    }

    /// The whole text (to check the replay's result).
    package var text: String {
        var view = String.UnicodeScalarView()
        for chunk in chunks { for value in chunk { view.append(Unicode.Scalar(value)!) } }
        return String(view)
    }

    /// Bytes held by the chunk buffers (capacity, not just count).
    package var storageBytes: Int {
        chunks.reduce(0) { $0 + $1.capacity * 4 } + chunks.capacity * MemoryLayout<[UInt32]>.stride
    }
}
