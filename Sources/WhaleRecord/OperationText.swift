/// An op as the history writes it, ot.js form inside a JSON string: `[12,\"c\",-3]` (retain 12,
/// insert "c", delete 3). Stored as a varint count, then per component `zigzag(n) * 2` for a number or
/// `length * 2 + 1` and the text's bytes as they stand between its escaped quotes. The encoder keeps
/// this form only when writing it back gives the very bytes, so any string is safe to try.
enum OperationText {
    enum Component: Equatable {
        case number(Int64)
        case text(Range<Int>)
    }

    /// The components of `b[s]`, or nil when it is not an op written that way.
    static func parse(_ b: [UInt8], _ s: Range<Int>) -> [Component]? {
        guard s.count >= 2, b[s.lowerBound] == UInt8(ascii: "["), b[s.upperBound - 1] == UInt8(ascii: "]") else {
            return nil
        }
        var out: [Component] = []
        var i = s.lowerBound + 1
        let end = s.upperBound - 1
        if i == end { return verified(b, s, out) }
        while true {
            if i + 1 < end, b[i] == UInt8(ascii: "\\"), b[i + 1] == UInt8(ascii: "\"") {
                // A text: pairs `\\x` of the outer string until an escaped quote the text does not escape itself.
                var j = i + 2
                var escaped = false
                while true {
                    guard j < end else { return nil }
                    if b[j] == UInt8(ascii: "\\") {
                        guard j + 1 < end else { return nil }
                        let next = b[j + 1]
                        if next == UInt8(ascii: "\"") && !escaped { break }
                        escaped = next == UInt8(ascii: "\\") ? !escaped : false
                        j += 2
                    } else {
                        escaped = false
                        j += 1
                    }
                }
                out.append(.text((i + 2)..<j))
                i = j + 2
            } else {
                var j = i
                if j < end, b[j] == UInt8(ascii: "-") { j += 1 }
                let digits = j
                while j < end, b[j] >= UInt8(ascii: "0"), b[j] <= UInt8(ascii: "9") { j += 1 }
                guard j > digits, j - digits <= 18 else { return nil }
                var v: Int64 = 0
                for k in digits..<j { v = v * 10 + Int64(b[k] - UInt8(ascii: "0")) }
                out.append(.number(digits > i ? -v : v))
                i = j
            }
            if i == end { return verified(b, s, out) }
            guard b[i] == UInt8(ascii: ",") else { return nil }
            i += 1
        }
    }

    private static func verified(_ b: [UInt8], _ s: Range<Int>, _ components: [Component]) -> [Component]? {
        var encoded: [UInt8] = []
        append(components, b, into: &encoded)
        var p = 0
        guard let back = try? read(encoded, &p), p == encoded.count, b[s].elementsEqual(back) else { return nil }
        return components
    }

    static func append(_ components: [Component], _ b: [UInt8], into out: inout [UInt8]) {
        out.appendVarint(UInt64(components.count))
        for c in components {
            switch c {
            case .number(let n): out.appendVarint(UInt64(bitPattern: (n << 1) ^ (n >> 63)) << 1)
            case .text(let r):
                out.appendVarint(UInt64(r.count) << 1 | 1)
                out.append(contentsOf: b[r])
            }
        }
    }

    struct Short: Error {}

    /// The op's text back from `bytes[p...]`; throws ``Short`` when the bytes end first.
    static func read(_ bytes: [UInt8], _ p: inout Int) throws -> [UInt8] {
        func varint() throws -> UInt64 {
            var v: UInt64 = 0, shift: UInt64 = 0
            while true {
                guard p < bytes.count else { throw Short() }
                let x = bytes[p]
                p += 1
                guard shift < 64 else { throw RecordFileError.corrupt("a varint is too long") }
                v |= UInt64(x & 0x7F) << shift
                if x & 0x80 == 0 { return v }
                shift += 7
            }
        }
        let count = try varint()
        guard count <= UInt64(bytes.count - p) else {
            throw count > UInt64(HistoryDecoder.maxStringLength)
                ? RecordFileError.corrupt("an op of \(count) components") : Short()
        }
        var out: [UInt8] = [UInt8(ascii: "[")]
        for k in 0..<Int(count) {
            if k > 0 { out.append(UInt8(ascii: ",")) }
            let x = try varint()
            if x & 1 == 0 {
                out += String(unzigzag(x >> 1)).utf8
            } else {
                let n = x >> 1
                guard n <= UInt64(HistoryDecoder.maxStringLength) else {
                    throw RecordFileError.corrupt("an op text of \(n) bytes")
                }
                guard bytes.count - p >= Int(n) else { throw Short() }
                out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
                out += bytes[p..<(p + Int(n))]
                out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
                p += Int(n)
            }
        }
        out.append(UInt8(ascii: "]"))
        return out
    }
}
