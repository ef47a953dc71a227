extension JSONValue {
    /// Compact JSON text. Numbers follow Salesforce (Java) style: integers without a decimal
    /// point, doubles as Java's `Double.toString` prints them (`350000.0`, `3.5E8`).
    public func serialized() -> String {
        var out = ""
        out.reserveCapacity(64)
        write(into: &out)
        return out
    }

    /// Appends the compact JSON text of this value to `out` (avoids intermediate strings).
    public func write(into out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .double(let d): out += JSONValue.javaStyle(d)
        case .string(let s): JSONValue.writeEscaped(s, into: &out)
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                item.write(into: &out)
            }
            out += "]"
        case .object(let pairs):
            out += "{"
            for (i, (key, value)) in pairs.enumerated() {
                if i > 0 { out += "," }
                JSONValue.writeEscaped(key, into: &out)
                out += ":"
                value.write(into: &out)
            }
            out += "}"
        }
    }

    static func writeEscaped(_ s: String, into out: inout String) {
        out += "\""
        var needsEscape = false
        for b in s.utf8 where b < 0x20 || b == 0x22 || b == 0x5C { needsEscape = true; break }
        if !needsEscape {
            out += s
        } else {
            for scalar in s.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case "\r": out += "\\r"
                case "\t": out += "\\t"
                case "\u{08}": out += "\\b"
                case "\u{0C}": out += "\\f"
                default:
                    if scalar.value < 0x20 {
                        let hex = String(scalar.value, radix: 16)
                        out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                    } else {
                        out.unicodeScalars.append(scalar)
                    }
                }
            }
        }
        out += "\""
    }

    /// Java's `Double.toString` layout over Swift's shortest round-trip digits:
    /// plain decimal with at least one fraction digit when 1e-3 <= |d| < 1e7, else `d.dddE±n`.
    static func javaStyle(_ d: Double) -> String {
        guard d.isFinite else { return "null" }  // JSON has no NaN/Infinity
        if d == 0 { return d.sign == .minus ? "-0.0" : "0.0" }
        let (digits, exponent) = shortestDigits(abs(d))  // value = 0.d1d2... × 10^exponent
        let sign = d < 0 ? "-" : ""
        let magnitude = abs(d)
        if magnitude >= 1e-3 && magnitude < 1e7 {
            if exponent <= 0 {
                return sign + "0." + String(repeating: "0", count: -exponent) + digits
            }
            if digits.count <= exponent {
                return sign + digits + String(repeating: "0", count: exponent - digits.count) + ".0"
            }
            let cut = digits.index(digits.startIndex, offsetBy: exponent)
            return sign + digits[..<cut] + "." + digits[cut...]
        }
        let first = digits.prefix(1)
        let rest = digits.dropFirst()
        return sign + first + "." + (rest.isEmpty ? "0" : rest) + "E" + String(exponent - 1)
    }

    /// Shortest round-trip significant digits and the decimal exponent (0.DIGITS × 10^exp).
    static func shortestDigits(_ d: Double) -> (String, Int) {
        let text = "\(d)"  // Swift prints the shortest round-trip form, e.g. 350000000.0 or 1e-05
        var mantissa = Substring(text)
        var exp = 0
        if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            mantissa = text[..<e]
            exp = Int(text[text.index(after: e)...]) ?? 0
        }
        var intPart = mantissa
        var fracPart: Substring = ""
        if let dot = mantissa.firstIndex(of: ".") {
            intPart = mantissa[..<dot]
            fracPart = mantissa[mantissa.index(after: dot)...]
        }
        var all = String(intPart) + String(fracPart)
        var pointPos = intPart.count + exp
        while all.hasPrefix("0") && all.count > 1 { all.removeFirst(); pointPos -= 1 }
        while all.hasSuffix("0") && all.count > 1 { all.removeLast() }
        return (all, pointPos)
    }
}
