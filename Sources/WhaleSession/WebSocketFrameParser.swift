/// RFC 6455 frames read as they pass, one direction of a socket: masked client frames are
/// unmasked, fragments joined into messages; a close frame ends the stream. Pings and pongs
/// are skipped. (Compressed frames, permessage-deflate's RSV1, come out as they are, marked.)
public struct WebSocketFrameParser: Sendable {
    public struct Message: Sendable, Equatable {
        public enum Kind: Sendable, Equatable { case text, binary, close }
        public var kind: Kind
        public var payload: [UInt8]
        /// RSV1 set on its first frame: compressed by an extension.
        public var compressed: Bool
    }

    private var buffer: [UInt8] = []
    private var fragments: [UInt8] = []
    private var fragmentKind: Message.Kind?
    private var fragmentCompressed = false
    public private(set) var closed = false
    public private(set) var broken: String?

    public init() {}

    public mutating func feed(_ bytes: some Collection<UInt8>) -> [Message] {
        guard !closed, broken == nil else { return [] }
        buffer.append(contentsOf: bytes)
        var out: [Message] = []
        var at = 0
        while true {
            let b = buffer
            guard b.count - at >= 2 else { break }
            let fin = b[at] & 0x80 != 0
            let rsv1 = b[at] & 0x40 != 0
            let opcode = b[at] & 0x0F
            let masked = b[at + 1] & 0x80 != 0
            var length = Int(b[at + 1] & 0x7F)
            var p = at + 2
            if length == 126 {
                guard b.count - p >= 2 else { break }
                length = Int(b[p]) << 8 | Int(b[p + 1])
                p += 2
            } else if length == 127 {
                guard b.count - p >= 8 else { break }
                var l: UInt64 = 0
                for i in 0..<8 { l = l << 8 | UInt64(b[p + i]) }
                guard l < 1 << 40 else { broken = "a frame of \(l) bytes"; break }
                length = Int(l)
                p += 8
            }
            var key: [UInt8] = []
            if masked {
                guard b.count - p >= 4 else { break }
                key = Array(b[p..<p + 4])
                p += 4
            }
            guard b.count - p >= length else { break }
            var payload = Array(b[p..<p + length])
            if masked { for i in payload.indices { payload[i] ^= key[i & 3] } }
            at = p + length
            switch opcode {
            case 0x0:  // continuation
                guard let kind = fragmentKind else { broken = "a continuation frame with nothing to continue"; break }
                fragments += payload
                if fin {
                    out.append(Message(kind: kind, payload: fragments, compressed: fragmentCompressed))
                    fragments = []
                    fragmentKind = nil
                }
            case 0x1, 0x2:
                let kind: Message.Kind = opcode == 1 ? .text : .binary
                if fin {
                    out.append(Message(kind: kind, payload: payload, compressed: rsv1))
                } else {
                    fragmentKind = kind
                    fragmentCompressed = rsv1
                    fragments = payload
                }
            case 0x8:
                out.append(Message(kind: .close, payload: payload, compressed: false))
                closed = true
            case 0x9, 0xA: break
            default: broken = "opcode \(opcode)"
            }
            if closed || broken != nil { break }
        }
        buffer.removeFirst(min(at, buffer.count))
        return out
    }
}
