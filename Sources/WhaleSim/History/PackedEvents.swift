import WhaleOT

/// History entries packed into bytes, for a history that must not grow its holder's memory by
/// a hundred-odd bytes an event: a live run records some fifteen events an edit for as long as it
/// runs (docs/decisions/0031-runner-memory-bounded-through-a-long-load.md). Each entry is its kind, its
/// time as a varint delta, then its fields (zigzag varints; text as a length and UTF-8; an op as its components).
/// An op id `P:N` is a prefix from a table (one per client connection) and the number `N`.
/// Reading decodes one entry at a time, in order; nothing is kept but the bytes and the table.
///
/// Once the bytes held reach a chunk (1 MiB), they move to an unlinked scratch file
/// (``SpillFile``) and reading takes them back a chunk at a time: the holder's memory stays at
/// about a chunk however long the history grows. Without a writable temporary directory (or
/// once a write to it fails) the bytes simply stay in memory. A copy shares the file: it reads
/// what was spilled before the copy, and one that appends after the original did moves to a
/// file of its own, so copies stay values.
///
/// ```swift
/// var packed = PackedEvents()
/// packed.append(HistoryEntry(time: 5, event: .connect(client: 0)))
/// for entry in packed { print(entry) }
/// ```
public struct PackedEvents: Sequence, Sendable {
    /// The bytes not spilled yet (all of them while nothing is).
    private var bytes: [UInt8] = []
    private var prefixes: [String] = []
    private var prefixIndex: [String: Int] = [:]
    private var lastTime: SimTime = 0
    public private(set) var count = 0
    /// Spilled chunks' lengths, in order; entries never straddle two chunks.
    private var chunks: [Int] = []
    private var spilledBytes = 0
    private var spill: SpillFile?
    /// Bytes held in memory before they move to the scratch file; 0 never spills.
    private var chunkLimit: Int

    /// The bytes held in memory before they move to the scratch file, by default.
    public static let chunkSize = 1 << 20

    /// Where the scratch file goes (nil: `TMPDIR`, else `/tmp`).
    private let spillDirectory: String?

    /// `chunkBytes`: how many bytes to hold before moving them to a scratch file (0: keep all in
    /// memory); `spillDirectory`: where that file goes (nil: `TMPDIR`, else `/tmp`).
    public init(chunkBytes: Int = PackedEvents.chunkSize, spillDirectory: String? = nil) {
        chunkLimit = Swift.max(0, chunkBytes)
        self.spillDirectory = spillDirectory
    }

    /// Bytes held (the packed entries, spilled or not, and the op id prefixes).
    public var byteCount: Int { spilledBytes + bytes.count + prefixes.reduce(0) { $0 + $1.utf8.count } }

    /// Packed bytes held in memory (not spilled).
    public var bytesInMemory: Int { bytes.count }

    /// Packed bytes moved to the scratch file.
    public var bytesSpilled: Int { spilledBytes }

    public mutating func append(_ entry: HistoryEntry) {
        let e = entry.event
        putTag(e)
        putInt(entry.time - lastTime)
        lastTime = entry.time
        switch e {
        case .edit(let c, let p, let d, let i): putInt(c); putInt(p); putInt(d); putText(i)
        case .invoke(let c, let id, let op, let r): putInt(c); putOpId(id); putOp(op); putInt(r)
        case .send(let c, let id, let op, let r): putInt(c); putOpId(id); putOp(op); putInt(r)
        case .ack(let c, let id, let r): putInt(c); putOpId(id); putInt(r)
        case .failed(let c, let id, let code): putInt(c); putOpId(id); putText(code)
        case .serverApply(let d, let c, let id, let op, let r): putInt(d); putInt(c); putOpId(id); putOp(op); putInt(r)
        case .serverRevision(let d, let f, let t, let cause): putInt(d); putInt(f); putInt(t); putText(cause)
        case .clientRevision(let c, let r): putInt(c); putInt(r)
        case .error(let c, let code, let m): putInt(c); putText(code); putText(m)
        case .cursorDelivered(let c, let r, let s): putInt(c); putInt(r); putSelection(s)
        case .selectionSet(let c, let r, let s): putInt(c); putInt(r); putSelection(s)
        case .ownCursor(let c, let r, let s, let n): putInt(c); putInt(r); putSelection(s); putInt(n)
        case .remoteCursor(let o, let s, let r, let sel, let n):
            putInt(o); putInt(s); putInt(r); putSelection(sel); putInt(n)
        case .connect(let c): putInt(c)
        case .disconnect(let c, let cause): putInt(c); putText(cause)
        case .serverCrash, .serverRestart, .heal: break
        case .note(let text): putText(text)
        case .quiescence(let reached, let ticks): bytes.append(reached ? 1 : 0); putInt(ticks)
        case .traffic(let m, let ed, let c): putInt(m); putInt(ed); putInt(c)
        case .clientFinal(let c, let t, let r, let p, let conn):
            putInt(c); putText(t); putInt(r); putInt(p); bytes.append(conn ? 1 : 0)
        case .serverFinal(let d, let t, let r, let h): putInt(d); putText(t); putInt(r); putInt(h)
        case .modelInvoke(let c, let id, let m): putInt(c); putText(id); putText(m)
        case .modelApply(let c, let id, let o, let records): putInt(c); putText(id); putInt(o); putTexts(records)
        case .modelAck(let c, let id, let o): putInt(c); putText(id); putInt(o)
        case .modelFailed(let c, let id, let code): putInt(c); putText(id); putText(code)
        case .modelClientFinal(let c, let page, let records, let p):
            putInt(c); putText(page); putTexts(records); putInt(p)
        case .modelServerFinal(let c, let page, let records): putInt(c); putText(page); putTexts(records)
        case .modelServerState(let records): putTexts(records)
        case .observation(let d, let f, let t, let k, let detail):
            putInt(d); putInt(f); putInt(t); bytes.append(UInt8(ObservationKind.allCases.firstIndex(of: k)!));
            putText(detail)
        }
        count += 1
        if chunkLimit > 0, bytes.count >= chunkLimit { spillChunk() }
    }

    /// Moves the bytes held to the scratch file (see the type's comment); on any failure they stay
    /// in memory and no more spilling is tried.
    private mutating func spillChunk() {
        if spill == nil { spill = SpillFile(directory: spillDirectory) }
        guard let file = spill else { chunkLimit = 0; return }
        if !file.append(bytes, at: spilledBytes) {
            // Another copy appended to the shared file first (or the disk is full): move what this
            // copy spilled to a file of its own and try once more there.
            guard file.size != spilledBytes, let own = SpillFile(directory: spillDirectory) else {
                chunkLimit = 0; return
            }
            var offset = 0
            for length in chunks {
                guard own.append(file.read(at: offset, count: length), at: offset) else { chunkLimit = 0; return }
                offset += length
            }
            spill = own
            guard own.append(bytes, at: spilledBytes) else { chunkLimit = 0; return }
        }
        chunks.append(bytes.count)
        spilledBytes += bytes.count
        bytes.removeAll(keepingCapacity: true)
    }

    // MARK: Writing

    private mutating func putTag(_ e: HistoryEvent) {
        let tag: UInt8 =
            switch e {
            case .edit: 1
            case .invoke: 2
            case .send: 3
            case .ack: 4
            case .failed: 5
            case .serverApply: 6
            case .serverRevision: 7
            case .clientRevision: 8
            case .error: 9
            case .cursorDelivered: 10
            case .selectionSet: 11
            case .ownCursor: 12
            case .remoteCursor: 13
            case .connect: 14
            case .disconnect: 15
            case .serverCrash: 16
            case .serverRestart: 17
            case .note: 18
            case .heal: 19
            case .quiescence: 20
            case .traffic: 21
            case .clientFinal: 22
            case .serverFinal: 23
            case .modelInvoke: 24
            case .modelApply: 25
            case .modelAck: 26
            case .modelFailed: 27
            case .modelClientFinal: 28
            case .modelServerFinal: 29
            case .modelServerState: 30
            case .observation: 31
            }
        bytes.append(tag)
    }

    private mutating func putUInt(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    private mutating func putInt(_ value: Int) {
        let v = Int64(value)
        putUInt(UInt64(bitPattern: (v << 1) ^ (v >> 63)))
    }

    private mutating func putText(_ text: String) {
        putUInt(UInt64(text.utf8.count))
        bytes.append(contentsOf: text.utf8)
    }

    private mutating func putTexts(_ texts: [String]) {
        putUInt(UInt64(texts.count))
        for t in texts { putText(t) }
    }

    private mutating func putSelection(_ s: Selection?) {
        guard let s else { bytes.append(0); return }
        bytes.append(1)
        putInt(s.anchor)
        putInt(s.head)
    }

    private mutating func putOp(_ op: Operation) {
        putUInt(UInt64(op.components.count))
        for c in op.components {
            switch c {
            case .retain(let n): bytes.append(1); putUInt(UInt64(n))
            case .insert(let text, let count): bytes.append(2); putUInt(UInt64(count)); putText(text)
            case .delete(let n): bytes.append(3); putUInt(UInt64(n))
            }
        }
    }

    /// `P:N` (N decimal, no leading zero) as a prefix index and N; anything else as text.
    private mutating func putOpId(_ id: String) {
        let utf8 = id.utf8
        if let colon = utf8.lastIndex(of: UInt8(ascii: ":")), colon != utf8.startIndex {
            let digits = utf8[utf8.index(after: colon)...]
            if !digits.isEmpty, digits.count <= 18, digits.allSatisfy({ $0 >= 48 && $0 <= 57 }),
                digits.count == 1 || digits.first != 48
            {
                let prefix = String(id[..<colon])
                var n: UInt64 = 0
                for d in digits { n = n * 10 + UInt64(d - 48) }
                let index: Int
                if let known = prefixIndex[prefix] {
                    index = known
                } else {
                    index = prefixes.count
                    prefixes.append(prefix)
                    prefixIndex[prefix] = index
                }
                putUInt(UInt64(index) + 1)
                putUInt(n)
                return
            }
        }
        bytes.append(0)
        putText(id)
    }

    // MARK: Reading

    public func makeIterator() -> Iterator { Iterator(spill: spill, chunks: chunks, tail: bytes, prefixes: prefixes) }

    /// Decodes the entries in order, reading spilled chunks back one at a time.
    public struct Iterator: IteratorProtocol {
        private let spill: SpillFile?
        private let chunks: [Int]
        private let tail: [UInt8]
        private let prefixes: [String]
        /// The chunk being decoded (a spilled one, then the tail).
        private var bytes: [UInt8] = []
        private var nextChunk = 0
        private var nextOffset = 0
        private var onTail = false
        private var at = 0
        private var time: SimTime = 0

        init(spill: SpillFile?, chunks: [Int], tail: [UInt8], prefixes: [String]) {
            self.spill = spill
            self.chunks = chunks
            self.tail = tail
            self.prefixes = prefixes
        }

        /// Loads the next chunk once this one is read; false at the end.
        private mutating func advance() -> Bool {
            while at >= bytes.count {
                if nextChunk < chunks.count, let spill {
                    bytes = spill.read(at: nextOffset, count: chunks[nextChunk])
                    nextOffset += chunks[nextChunk]
                    nextChunk += 1
                } else if !onTail {
                    bytes = tail
                    onTail = true
                } else {
                    return false
                }
                at = 0
            }
            return true
        }

        public mutating func next() -> HistoryEntry? {
            guard advance() else { return nil }
            let tag = bytes[at]
            at += 1
            time += int()
            let event: HistoryEvent
            switch tag {
            case 1: event = .edit(client: int(), position: int(), deleted: int(), inserted: text())
            case 2: event = .invoke(client: int(), opId: opId(), op: op(), baseRevision: int())
            case 3: event = .send(client: int(), opId: opId(), op: op(), revision: int())
            case 4: event = .ack(client: int(), opId: opId(), revision: int())
            case 5: event = .failed(client: int(), opId: opId(), code: text())
            case 6: event = .serverApply(document: int(), client: int(), opId: opId(), op: op(), revision: int())
            case 7: event = .serverRevision(document: int(), from: int(), to: int(), cause: text())
            case 8: event = .clientRevision(client: int(), revision: int())
            case 9: event = .error(client: int(), code: text(), message: text())
            case 10: event = .cursorDelivered(client: int(), revision: int(), selection: selection()!)
            case 11: event = .selectionSet(client: int(), revision: int(), selection: selection()!)
            case 12: event = .ownCursor(client: int(), revision: int(), selection: selection()!, textLength: int())
            case 13:
                event = .remoteCursor(
                    observer: int(), subject: int(), revision: int(), selection: selection(), textLength: int())
            case 14: event = .connect(client: int())
            case 15: event = .disconnect(client: int(), cause: text())
            case 16: event = .serverCrash
            case 17: event = .serverRestart
            case 18: event = .note(text())
            case 19: event = .heal
            case 20: event = .quiescence(reached: byte() == 1, ticksAfterHeal: int())
            case 21: event = .traffic(messages: int(), edits: int(), clients: int())
            case 22:
                event = .clientFinal(
                    client: int(), text: text(), revision: int(), pendingOps: int(), connected: byte() == 1)
            case 23: event = .serverFinal(document: int(), text: text(), revision: int(), historyCount: int())
            case 24: event = .modelInvoke(client: int(), requestId: text(), mutation: text())
            case 25: event = .modelApply(client: int(), requestId: text(), order: int(), records: texts())
            case 26: event = .modelAck(client: int(), requestId: text(), order: int())
            case 27: event = .modelFailed(client: int(), requestId: text(), code: text())
            case 28: event = .modelClientFinal(client: int(), page: text(), records: texts(), pending: int())
            case 29: event = .modelServerFinal(client: int(), page: text(), records: texts())
            case 30: event = .modelServerState(records: texts())
            case 31:
                event = .observation(
                    document: int(), from: int(), to: int(), kind: ObservationKind.allCases[Int(byte())], detail: text()
                )
            default: preconditionFailure("PackedEvents: unknown tag \(tag) at byte \(at - 1)")
            }
            return HistoryEntry(time: time, event: event)
        }

        private mutating func byte() -> UInt8 {
            defer { at += 1 }
            return bytes[at]
        }

        private mutating func uint() -> UInt64 {
            var v: UInt64 = 0, shift: UInt64 = 0
            while true {
                let b = bytes[at]
                at += 1
                v |= UInt64(b & 0x7F) << shift
                if b < 0x80 { return v }
                shift += 7
            }
        }

        private mutating func int() -> Int {
            let u = uint()
            return Int(Int64(bitPattern: (u >> 1) ^ (0 &- (u & 1))))
        }

        private mutating func text() -> String {
            let n = Int(uint())
            defer { at += n }
            return bytes.withUnsafeBufferPointer {
                String(decoding: UnsafeBufferPointer(rebasing: $0[at..<at + n]), as: UTF8.self)
            }
        }

        private mutating func texts() -> [String] {
            (0..<Int(uint())).map { _ in text() }
        }

        private mutating func selection() -> Selection? {
            guard byte() == 1 else { return nil }
            let anchor = int()
            return Selection(anchor: anchor, head: int())
        }

        private mutating func op() -> Operation {
            let n = Int(uint())
            var op = Operation(capacity: n)
            for _ in 0..<n {
                switch byte() {
                case 1: op.retain(Int(uint()))
                case 2:
                    let count = Int(uint())
                    op.insert(text(), count: count)
                default: op.delete(Int(uint()))
                }
            }
            return op
        }

        private mutating func opId() -> String {
            let p = uint()
            guard p > 0 else { return text() }
            return prefixes[Int(p - 1)] + ":" + String(uint())
        }
    }
}
