extension WireJSON {
    /// Parses one JSON value filling all of `bytes` (UTF-8). Ill-formed UTF-8 and lone surrogate
    /// escapes are errors, never replaced.
    public static func parse(_ bytes: some Collection<UInt8>) throws(WireJSONError) -> WireJSON {
        try parse(Array(bytes))
    }

    /// The same for bytes already in an array (no copy).
    public static func parse(_ buffer: [UInt8]) throws(WireJSONError) -> WireJSON {
        var parser = WireJSONParser(bytes: buffer)
        parser.skipSpace()
        let value = try parser.value(depth: 0)
        parser.skipSpace()
        guard parser.index == buffer.count else { throw parser.error("unexpected data after the value") }
        return value
    }

    /// Parses a string.
    public static func parse(_ text: String) throws(WireJSONError) -> WireJSON {
        try parse(Array(text.utf8))
    }
}

struct WireJSONParser {
    let bytes: [UInt8]
    var index = 0
    static let maxDepth = 64

    func error(_ reason: String) -> WireJSONError { WireJSONError(offset: index, reason: reason) }

    mutating func skipSpace() {
        while index < bytes.count,
            bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09
        {
            index += 1
        }
    }

    mutating func value(depth: Int) throws(WireJSONError) -> WireJSON {
        guard depth < Self.maxDepth else { throw error("nested too deeply") }
        guard index < bytes.count else { throw error("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw error("unexpected character '\(Unicode.Scalar(bytes[index]))'")
        }
    }

    mutating func literal(_ word: StaticString) throws(WireJSONError) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw error("unexpected end of input") }
        let expected = UnsafeBufferPointer(start: word.utf8Start, count: count)
        for offset in 0..<count where bytes[index + offset] != expected[offset] {
            throw error("invalid literal")
        }
        index += count
    }

    mutating func object(depth: Int) throws(WireJSONError) -> WireJSON {
        index += 1
        var members: [(String, WireJSON)] = []
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
        while true {
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a key string") }
            let key = try string()
            if members.contains(where: { $0.0 == key }) { throw error("duplicate key \"\(key)\"") }
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':'") }
            index += 1
            skipSpace()
            members.append((key, try value(depth: depth + 1)))
            skipSpace()
            guard index < bytes.count else { throw error("unexpected end of input") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
            throw error("expected ',' or '}'")
        }
    }

    mutating func array(depth: Int) throws(WireJSONError) -> WireJSON {
        index += 1
        var elements: [WireJSON] = []
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return .array(elements) }
        while true {
            skipSpace()
            elements.append(try value(depth: depth + 1))
            skipSpace()
            guard index < bytes.count else { throw error("unexpected end of input") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(elements) }
            throw error("expected ',' or ']'")
        }
    }

    mutating func number() throws(WireJSONError) -> WireJSON {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        var isInteger = true
        func digits(_ p: inout WireJSONParser) -> Int {
            let s = p.index
            while p.index < p.bytes.count, p.bytes[p.index] >= 0x30, p.bytes[p.index] <= 0x39 { p.index += 1 }
            return p.index - s
        }
        let intDigits = digits(&self)
        guard intDigits > 0 else { throw error("expected a digit") }
        if intDigits > 1, bytes[start + (bytes[start] == UInt8(ascii: "-") ? 1 : 0)] == UInt8(ascii: "0") {
            throw WireJSONError(offset: start, reason: "leading zero in a number")
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard digits(&self) > 0 else { throw error("expected a digit after '.'") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard digits(&self) > 0 else { throw error("expected a digit in the exponent") }
        }
        if isInteger, index - start <= 18 {
            // Up to 18 digits fit an Int exactly: no String round trip on the hot path.
            var value = 0
            var position = start
            let negative = bytes[position] == UInt8(ascii: "-")
            if negative { position += 1 }
            while position < index { value = value * 10 + Int(bytes[position] &- 0x30); position += 1 }
            return .int(negative ? -value : value)
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if isInteger, let value = Int(text) { return .int(value) }
        guard let value = Double(text) else { throw WireJSONError(offset: start, reason: "number out of range") }
        return .double(value)
    }

    mutating func string() throws(WireJSONError) -> String {
        index += 1
        var scalars = ""
        var runStart = index
        while true {
            guard index < bytes.count else { throw error("unterminated string") }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                try appendRun(runStart..<index, to: &scalars)
                index += 1
                return scalars
            }
            if byte < 0x20 { throw error("control character in a string") }
            if byte == UInt8(ascii: "\\") {
                try appendRun(runStart..<index, to: &scalars)
                index += 1
                scalars.unicodeScalars.append(try escape())
                runStart = index
                continue
            }
            index += 1
        }
    }

    /// Appends a run of raw string bytes, validating them as UTF-8 in one go.
    /// ASCII (nearly every key and most text) needs no validation and takes String's fast,
    /// specialised path; `String(validating:)` runs unspecialised generic code (runtime metadata
    /// lookups showed in the load runner's profile), so it is kept for the rest.
    func appendRun(_ range: Range<Int>, to text: inout String) throws(WireJSONError) {
        guard !range.isEmpty else { return }
        let run: String? = bytes.withUnsafeBufferPointer { all in
            let slice = UnsafeBufferPointer(rebasing: all[range])
            var ascii = true
            for byte in slice where byte >= 0x80 { ascii = false; break }
            return ascii ? String(decoding: slice, as: UTF8.self) : String(validating: slice, as: UTF8.self)
        }
        guard let run else {
            throw WireJSONError(offset: range.lowerBound, reason: "ill-formed UTF-8 in a string")
        }
        if text.isEmpty { text = run } else { text += run }
    }

    mutating func escape() throws(WireJSONError) -> Unicode.Scalar {
        guard index < bytes.count else { throw error("unterminated escape") }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let high = try hex4()
            if (0xD800...0xDBFF).contains(high) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                else {
                    throw error("lone high surrogate \\u\(String(high, radix: 16))")
                }
                index += 2
                let low = try hex4()
                guard (0xDC00...0xDFFF).contains(low) else { throw error("high surrogate not followed by a low one") }
                return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))!
            }
            guard let scalar = Unicode.Scalar(high) else {
                throw error("lone low surrogate \\u\(String(high, radix: 16))")
            }
            return scalar
        default:
            throw error("invalid escape '\\\(Unicode.Scalar(byte))'")
        }
    }

    mutating func hex4() throws(WireJSONError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("short \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case 0x30...0x39: digit = UInt32(byte - 0x30)
            case 0x41...0x46: digit = UInt32(byte - 0x41 + 10)
            case 0x61...0x66: digit = UInt32(byte - 0x61 + 10)
            default: throw error("invalid hex digit in \\u escape")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }
}
