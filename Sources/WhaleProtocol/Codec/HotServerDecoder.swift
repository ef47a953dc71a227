import WhaleOT

/// Decodes the one server message a load runner gets by the thousand, `docChangeReturnOps`, in
/// one pass over the bytes with no JSON tree: about ten of every eleven frames a virtual client
/// reads are one (its acks and the other editors' ops). `WireCodec.decodeServer` tries it first.
///
/// It reads only the exact form whalesim's server (and `JSON.stringify` of the same object)
/// writes: no whitespace, members in the order `senderId, messageId, type, data` and, inside
/// `data`, `resourceId, n, s[, opId][, cursor{userId, clientId, anchor, head}]`, strings with
/// no escapes, integers of at most 18 characters. Anything else, valid or not, returns `nil`
/// and the general decoder reads it, so what is accepted, what is refused and every error
/// message stay the general decoder's. `HotServerDecoderTests` checks that on random and mangled
/// frames: `nil` or the general decoder's value, never a different value.
enum HotServerDecoder {
    static func decode(_ bytes: [UInt8]) -> ServerEnvelope? {
        bytes.withUnsafeBufferPointer { decode($0) }
    }

    static func decode(_ bytes: UnsafeBufferPointer<UInt8>) -> ServerEnvelope? {
        var r = Reader(bytes: bytes)
        guard r.literal(#"{"senderId":"#), let senderId = r.string(),
            r.literal(#","messageId":"#), let messageId = r.string(),
            r.literal(#","type":"docChangeReturnOps","data":{"resourceId":"#), let resourceId = r.string(),
            r.literal(#","n":"#), let n = r.array({ $0.int() }),
            r.literal(#","s":"#), let s = r.array({ $0.string() })
        else { return nil }
        var opId: String?
        if r.literal(#","opId":"#) {
            guard let id = r.string() else { return nil }
            opId = id
        }
        var cursor: AuthorCursor?
        if r.literal(#","cursor":{"userId":"#) {
            guard let userId = r.string(), r.literal(#","clientId":"#), let clientId = r.string(),
                r.literal(#","anchor":"#), let anchor = r.int(), r.literal(#","head":"#), let head = r.int(),
                r.skip(UInt8(ascii: "}"))
            else { return nil }
            cursor = AuthorCursor(
                userId: userId, clientId: ClientID(clientId), selection: Selection(anchor: anchor, head: head))
        }
        guard r.literal("}}"), r.atEnd else { return nil }
        // A malformed op is the general decoder's to report (`badOperation`, with its path).
        guard let op = try? WireOperation(n: n, s: s).operation() else { return nil }
        return ServerEnvelope(
            senderId: senderId, messageId: messageId,
            message: .docChangeReturnOps(resourceId: resourceId, op: op, opId: opId, cursor: cursor))
    }

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        var atEnd: Bool { index == bytes.count }

        /// Consumes `text` if the bytes go on with exactly it.
        mutating func literal(_ text: StaticString) -> Bool {
            let count = text.utf8CodeUnitCount
            guard bytes.count - index >= count else { return false }
            let expected = text.utf8Start
            for offset in 0..<count where bytes[index + offset] != expected[offset] { return false }
            index += count
            return true
        }

        /// `[e, e, ...]` with each element read by `element`; nil if any element or the brackets fail.
        mutating func array<Element>(_ element: (inout Reader) -> Element?) -> [Element]? {
            guard skip(UInt8(ascii: "[")) else { return nil }
            var out: [Element] = []
            if skip(UInt8(ascii: "]")) { return out }
            while true {
                guard let e = element(&self) else { return nil }
                out.append(e)
                if skip(UInt8(ascii: ",")) { continue }
                return skip(UInt8(ascii: "]")) ? out : nil
            }
        }

        mutating func skip(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        /// A string with no escapes and no control characters, valid UTF-8; nil for anything else.
        mutating func string() -> String? {
            guard skip(UInt8(ascii: "\"")) else { return nil }
            let start = index
            var ascii = true
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    let run = UnsafeBufferPointer(rebasing: bytes[start..<index])
                    index += 1
                    return ascii ? String(decoding: run, as: UTF8.self) : String(validating: run, as: UTF8.self)
                }
                if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
                if byte >= 0x80 { ascii = false }
                index += 1
            }
            return nil
        }

        /// A JSON integer of at most 18 characters (exact in an Int) and not the start of a
        /// fraction or exponent; nil for anything else.
        mutating func int() -> Int? {
            let start = index
            let negative = skip(UInt8(ascii: "-"))
            let digitsStart = index
            var value = 0
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                value = value &* 10 &+ Int(bytes[index] &- 0x30)
                index += 1
            }
            let digits = index - digitsStart
            guard digits > 0, index - start <= 18 else { return nil }
            guard digits == 1 || bytes[digitsStart] != 0x30 else { return nil }
            if index < bytes.count,
                bytes[index] == UInt8(ascii: ".") || bytes[index] == UInt8(ascii: "e")
                    || bytes[index] == UInt8(ascii: "E")
            {
                return nil
            }
            return negative ? -value : value
        }
    }
}
