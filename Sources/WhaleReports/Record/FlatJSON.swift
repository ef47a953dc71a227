/// A parser for one flat JSON object of scalars (a history line): faster than
/// Foundation's on a big history, and it keeps `true` apart from `1` on every platform.
/// Nested values are skipped as `null`.
enum FlatJSON {
    static func object(_ bytes: Substring.UTF8View) -> (Int, String, [String: HistoryLine.FieldValue])? {
        object(Array(bytes), 0..<bytes.count)
    }

    /// The object in `bytes[range]` (one line of a file read whole: no copy per line).
    static func object(_ bytes: [UInt8], _ range: Range<Int>) -> (Int, String, [String: HistoryLine.FieldValue])? {
        var p = Parser(bytes: bytes, i: range.lowerBound, end: range.upperBound)
        guard let all = p.object(), p.atEnd else { return nil }
        guard case .int(let t)? = all["t"], case .string(let type)? = all["type"] else { return nil }
        var fields = all
        fields["t"] = nil
        fields["type"] = nil
        return (t, type, fields)
    }

    /// The type of the line in `bytes[range]` when ``object(_:_:)`` would read it, nil when it
    /// would not; the other values are checked the same way but not built. For the lines a reader
    /// checks and counts but does not keep (most of a long run's, for a report).
    static func type(_ bytes: [UInt8], _ range: Range<Int>) -> String? {
        var p = Parser(bytes: bytes, i: range.lowerBound, end: range.upperBound)
        guard let (t, type) = p.checkedObject(), p.atEnd, case .int? = t, case .string(let name)? = type else {
            return nil
        }
        return name
    }

    private struct Parser {
        let bytes: [UInt8]
        var i: Int
        let end: Int

        var atEnd: Bool { mutating get { skipSpace(); return i == end } }

        mutating func skipSpace() {
            while i < end, bytes[i] == 0x20 || bytes[i] == 0x09 || bytes[i] == 0x0A || bytes[i] == 0x0D { i += 1 }
        }

        mutating func eat(_ b: UInt8) -> Bool {
            skipSpace()
            guard i < end, bytes[i] == b else { return false }
            i += 1
            return true
        }

        mutating func object() -> [String: HistoryLine.FieldValue]? {
            guard eat(UInt8(ascii: "{")) else { return nil }
            var out: [String: HistoryLine.FieldValue] = [:]
            if eat(UInt8(ascii: "}")) { return out }
            repeat {
                skipSpace()
                guard let key = string(), eat(UInt8(ascii: ":")), let value = value() else { return nil }
                out[key] = value
            } while eat(UInt8(ascii: ","))
            return eat(UInt8(ascii: "}")) ? out : nil
        }

        /// ``object()`` with only the last `t` and `type` values built (those ``object()`` would
        /// keep for them); every other value is checked as ``value()`` checks it.
        mutating func checkedObject() -> (t: HistoryLine.FieldValue?, type: HistoryLine.FieldValue?)? {
            guard eat(UInt8(ascii: "{")) else { return nil }
            var t: HistoryLine.FieldValue?, type: HistoryLine.FieldValue?
            if eat(UInt8(ascii: "}")) { return (t, type) }
            repeat {
                skipSpace()
                guard let key = string(), eat(UInt8(ascii: ":")) else { return nil }
                switch key {
                case "t": guard let v = value() else { return nil }; t = v
                case "type": guard let v = value() else { return nil }; type = v
                default: guard skipValue() else { return nil }
                }
            } while eat(UInt8(ascii: ","))
            return eat(UInt8(ascii: "}")) ? (t, type) : nil
        }

        /// Whether a value is there, as ``value()`` would read it, without building it.
        mutating func skipValue() -> Bool {
            skipSpace()
            guard i < end else { return false }
            switch bytes[i] {
            case UInt8(ascii: "\""): return skipString()
            case UInt8(ascii: "t"): return literal("true")
            case UInt8(ascii: "f"): return literal("false")
            case UInt8(ascii: "n"): return literal("null")
            case UInt8(ascii: "{"), UInt8(ascii: "["): return skipNested()
            default: return number() != nil
            }
        }

        /// Whether a string is there, as ``string()`` would read it (the same escapes), without building it.
        mutating func skipString() -> Bool {
            guard i < end, bytes[i] == UInt8(ascii: "\"") else { return false }
            i += 1
            while i < end {
                let b = bytes[i]
                i += 1
                if b == UInt8(ascii: "\"") { return true }
                guard b == UInt8(ascii: "\\") else { continue }
                guard i < end else { return false }
                let e = bytes[i]
                i += 1
                if e == UInt8(ascii: "u") {
                    guard let code = hex4() else { return false }
                    // The same steps as string(): a high surrogate takes a following \u escape along.
                    if (0xD800..<0xDC00).contains(code), literal("\\u"), hex4() != nil {}
                }
            }
            return false
        }

        mutating func value() -> HistoryLine.FieldValue? {
            skipSpace()
            guard i < end else { return nil }
            switch bytes[i] {
            case UInt8(ascii: "\""): return string().map { .string($0) }
            case UInt8(ascii: "t"): return literal("true") ? .bool(true) : nil
            case UInt8(ascii: "f"): return literal("false") ? .bool(false) : nil
            case UInt8(ascii: "n"): return literal("null") ? .null : nil
            case UInt8(ascii: "{"), UInt8(ascii: "["): return skipNested() ? .null : nil
            default: return number()
            }
        }

        mutating func literal(_ word: String) -> Bool {
            let w = Array(word.utf8)
            guard i + w.count <= end, Array(bytes[i..<i + w.count]) == w else { return false }
            i += w.count
            return true
        }

        mutating func number() -> HistoryLine.FieldValue? {
            // Integers (nearly every number in a history) without building a String.
            var j = i, negative = false, value = 0, digits = 0
            if j < end, bytes[j] == UInt8(ascii: "-") { negative = true; j += 1 }
            while j < end, bytes[j] >= 0x30, bytes[j] <= 0x39, digits < 18 {
                value = value * 10 + Int(bytes[j] - 0x30)
                digits += 1
                j += 1
            }
            if digits > 0,
                j == end
                    || !(bytes[j] == UInt8(ascii: ".") || bytes[j] == UInt8(ascii: "e") || bytes[j] == UInt8(ascii: "E")
                        || (bytes[j] >= 0x30 && bytes[j] <= 0x39))
            {
                i = j
                return .int(negative ? -value : value)
            }
            let start = i
            while i < end,
                (bytes[i] >= 0x30 && bytes[i] <= 0x39) || bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+")
                    || bytes[i] == UInt8(ascii: ".") || bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E")
            { i += 1 }
            let text = String(decoding: bytes[start..<i], as: UTF8.self)
            if let n = Int(text) { return .int(n) }
            // A fraction is cut to its integer; one past Int's range (1e30) is not a history's number.
            if let d = Double(text), let n = Int(exactly: d.rounded(.towardZero)) { return .int(n) }
            return nil
        }

        /// Skips a nested array or object (strings inside may hold brackets).
        mutating func skipNested() -> Bool {
            var depth = 0
            while i < end {
                switch bytes[i] {
                case UInt8(ascii: "\""): guard string() != nil else { return false }; continue
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { i += 1; return true }
                default: break
                }
                i += 1
            }
            return false
        }

        mutating func string() -> String? {
            guard i < end, bytes[i] == UInt8(ascii: "\"") else { return nil }
            i += 1
            var out: [UInt8] = []
            while i < end {
                let b = bytes[i]
                i += 1
                if b == UInt8(ascii: "\"") { return String(decoding: out, as: UTF8.self) }
                guard b == UInt8(ascii: "\\") else { out.append(b); continue }
                guard i < end else { return nil }
                let e = bytes[i]
                i += 1
                switch e {
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "u"):
                    guard var code = hex4() else { return nil }
                    if (0xD800..<0xDC00).contains(code), literal("\\u"), let low = hex4(),
                        (0xDC00..<0xE000).contains(low)
                    {
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    out.append(contentsOf: Array(String(Unicode.Scalar(code) ?? "\u{FFFD}").utf8))
                default: out.append(e)
                }
            }
            return nil
        }

        mutating func hex4() -> UInt32? {
            guard i + 4 <= end, let v = UInt32(String(decoding: bytes[i..<i + 4], as: UTF8.self), radix: 16) else {
                return nil
            }
            i += 4
            return v
        }
    }
}
