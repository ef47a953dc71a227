import Foundation

/// What a bare client of the bench knows and sends (``BareNoteLoad``, ``FloorNoteLoad``): its
/// note's revision and length only from counting the `docChangeReturnOps` frames it sees (every
/// op inserts one character at the note's end); like an ot.js client it keeps one op in flight,
/// and an op due meanwhile waits for the ack. No OT, no JSON decoding: substring searches.
package struct BareNoteTyping {
    package let index: Int
    package let account: String
    package var revision = 0
    package var length = 0
    package var joined = false
    package var seq = 0
    package var outstanding: [UInt8]?
    package var due = false

    package init(index: Int, account: String) {
        self.index = index
        self.account = account
    }

    /// The message that joins the note, sent once the socket is open.
    package var joinMessage: String {
        #"{"messageId":"join\#(index)","type":"resourceConnection","data":{"resourceId":"\#(account)"}}"#
    }

    /// One message from the server: the op to send now, if one was waiting for it, and whether
    /// it acknowledged this client's op.
    package mutating func receive(_ bytes: UnsafeRawBufferPointer) -> (send: String?, acked: Bool) {
        if !joined, Self.find(Self.joinAnswer, in: bytes) != nil {
            // `resourceConnectionConf`: the note's revision, and its text's length.
            revision = Self.integer(after: Self.revisionKey, in: bytes) ?? 0
            length = Self.integer(after: Self.lengthKey, in: bytes) ?? 0
            joined = true
            return (due ? nextOp() : nil, false)
        }
        guard Self.find(Self.opFrame, in: bytes) != nil else { return (nil, false) }
        revision += 1
        length += 1
        guard let mine = outstanding, Self.find(mine, in: bytes) != nil else { return (nil, false) }
        outstanding = nil
        return (due ? nextOp() : nil, true)
    }

    /// The user's think time is over: the op to send now, or nil if it waits for an ack (or the join).
    package mutating func type() -> String? {
        guard joined, outstanding == nil else { due = true; return nil }
        return nextOp()
    }

    private mutating func nextOp() -> String {
        seq += 1
        due = false
        let messageId = "b\(index)m\(seq)"
        outstanding = Array("\"messageId\":\"\(messageId)\"".utf8)
        let (n, text) = length > 0 ? ("[\(length),0]", #"["","x"]"#) : ("[0]", #"["x"]"#)
        return
            #"{"messageId":"\#(messageId)","type":"docChange","data":{"resourceId":"\#(account)","rev":\#(revision),"n":\#(n),"s":\#(text),"opId":"b\#(index).\#(seq)"}}"#
    }

    package static let joinAnswer = Array("\"resourceConnectionConf\"".utf8)
    package static let opFrame = Array("\"docChangeReturnOps\"".utf8)
    package static let revisionKey = Array("\"revision\":".utf8)
    package static let lengthKey = Array("\"initialState\":\"".utf8)

    /// The integer after `key` (or, for the initial state, the length of the string there: the
    /// bench's notes hold only the ASCII characters these clients typed).
    package static func integer(after key: [UInt8], in bytes: UnsafeRawBufferPointer) -> Int? {
        guard let at = find(key, in: bytes) else { return nil }
        var i = at + key.count
        if key == lengthKey {
            let start = i
            while i < bytes.count, bytes[i] != UInt8(ascii: "\"") { i += 1 }
            return i - start
        }
        var value = 0
        while i < bytes.count, bytes[i] >= 48, bytes[i] <= 57 { value = value * 10 + Int(bytes[i] - 48); i += 1 }
        return value
    }

    /// Where `needle` starts in `bytes`: `memchr` for its first byte, `memcmp` for the rest. (The
    /// standard library's `firstRange(of:)` is generic code the compiler cannot specialize here:
    /// in a profile of these clients it spent more in metadata look-ups than in the search, and
    /// made the yardstick heavier than what it measures.)
    package static func find(_ needle: [UInt8], in bytes: UnsafeRawBufferPointer) -> Int? {
        guard let base = bytes.baseAddress, !needle.isEmpty, bytes.count >= needle.count else { return nil }
        return needle.withUnsafeBytes { n -> Int? in
            var from = 0
            while from <= bytes.count - n.count {
                guard let hit = memchr(base + from, Int32(n[0]), bytes.count - n.count + 1 - from) else { return nil }
                let at = base.distance(to: UnsafeRawPointer(hit))
                if memcmp(base + at, n.baseAddress!, n.count) == 0 { return at }
                from = at + 1
            }
            return nil
        }
    }

    /// The seeded draws every kind of bare client types by, so their schedules are the same: each
    /// client's first keystroke, somewhere in its first think time, and the seed it goes on from.
    package static func firstKeystrokes(clients: Int, thinkMs: Int) -> [(ms: Int64, seed: UInt64)] {
        var seed = UInt64(0x9E37_79B9_7F4A_7C15)
        return (0..<clients).map { _ in
            seed = step(seed)
            return (Int64(seed >> 33) % Int64(max(1, thinkMs)), seed)
        }
    }

    /// The think time after `seed`'s draw: `thinkMs` ± 10%, and the next seed.
    package static func think(_ seed: UInt64, thinkMs: Int) -> (ms: Int64, seed: UInt64) {
        let next = step(seed)
        return (Int64(thinkMs) * 9 / 10 + Int64(next >> 33) % Int64(max(1, thinkMs / 5)), next)
    }

    private static func step(_ seed: UInt64) -> UInt64 { seed &* 6364136223846793005 &+ 1442695040888963407 }
}
