import WhaleOT

extension WireCodec {
    /// The exact bytes of ``encode(_:)-(ClientEnvelope)``, written straight into an array: no JSON
    /// tree of tuples, no `String` made and copied again into a frame. A load runner sends one of
    /// these per edit; through the tree, encoding was about 5% of the runner's CPU (issue 21).
    /// `ClientBytesEncoderTests` checks the two agree, byte for byte, on random envelopes.
    public static func encodeBytes(_ envelope: ClientEnvelope) -> [UInt8] {
        var out = ByteWriter()
        out.raw(#"{"messageId":"#)
        out.string(envelope.messageId)
        switch envelope.message {
        case .resourceConnection(let resourceId, let revision):
            out.raw(#","type":"resourceConnection","data":{"resourceId":"#)
            out.string(resourceId)
            if let revision {
                out.raw(#","revision":"#)
                out.int(revision)
            }
        case .docChange(let change):
            out.raw(#","type":"docChange","data":{"resourceId":"#)
            out.string(change.resourceId)
            out.raw(#","rev":"#)
            out.int(change.rev)
            // The wire form of an op: `n` (retain k, insert 0, delete -k) and `s` (the inserts' text).
            out.raw(#","n":["#)
            for (i, c) in change.op.components.enumerated() {
                if i > 0 { out.byte(UInt8(ascii: ",")) }
                switch c {
                case .retain(let k): out.int(k)
                case .insert: out.byte(UInt8(ascii: "0"))
                case .delete(let k): out.int(-k)
                }
            }
            out.raw(#"],"s":["#)
            for (i, c) in change.op.components.enumerated() {
                if i > 0 { out.byte(UInt8(ascii: ",")) }
                if case .insert(let text, _) = c { out.string(text) } else { out.raw(#""""#) }
            }
            out.byte(UInt8(ascii: "]"))
            if let opId = change.opId {
                out.raw(#","opId":"#)
                out.string(opId)
            }
        case .cursorUpdate(let resourceId, let rev, let selection):
            out.raw(#","type":"cursorUpdate","data":{"resourceId":"#)
            out.string(resourceId)
            out.raw(#","rev":"#)
            out.int(rev)
            out.raw(#","anchor":"#)
            out.int(selection.anchor)
            out.raw(#","head":"#)
            out.int(selection.head)
        }
        out.raw("}}")
        return out.bytes
    }
}

/// Appends JSON pieces to a byte array, escaping strings as ``WireJSON``'s writer does.
struct ByteWriter {
    var bytes: [UInt8] = []

    init() { bytes.reserveCapacity(160) }

    mutating func byte(_ b: UInt8) { bytes.append(b) }

    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// A decimal integer, as `String(i)` writes it (a small string: no allocation).
    mutating func int(_ value: Int) { bytes.append(contentsOf: String(value).utf8) }

    /// `s` as a JSON string literal: `"`, `\` and the control characters escaped (`\n`, `\r`, `\t`,
    /// else `\u00XX` in lowercase hex), everything else as its UTF-8 bytes, as ``WireJSON`` writes.
    mutating func string(_ s: String) {
        bytes.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { utf8 in
            var start = 0
            for (i, b) in utf8.enumerated() where b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<i]))
                start = i + 1
                switch b {
                case UInt8(ascii: "\""): raw(#"\""#)
                case UInt8(ascii: "\\"): raw(#"\\"#)
                case UInt8(ascii: "\n"): raw(#"\n"#)
                case UInt8(ascii: "\r"): raw(#"\r"#)
                case UInt8(ascii: "\t"): raw(#"\t"#)
                default:
                    raw(#"\u00"#)
                    let hex: [UInt8] = Array("0123456789abcdef".utf8)
                    bytes.append(hex[Int(b >> 4)])
                    bytes.append(hex[Int(b & 0xF)])
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
