extension JSONValue {
    /// Compact JSON text. Numbers follow Salesforce (Java) style: integers without a decimal
    /// point, doubles as Java's `Double.toString` prints them (`350000.0`, `3.5E8`).
    public func serialized() -> String {
        String(decoding: serializedBytes(), as: UTF8.self)
    }

    /// Compact JSON as UTF-8 bytes (what an HTTP body needs; no intermediate String).
    public func serializedBytes() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(into: &out)
        return out
    }

    /// Appends the compact JSON text of this value to `out`.
    public func write(into out: inout String) {
        out += serialized()
    }

    /// Appends the compact JSON of this value to a byte buffer.
    public func write(into out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])
        case .bool(let b): out.append(contentsOf: b ? [0x74, 0x72, 0x75, 0x65] : [0x66, 0x61, 0x6C, 0x73, 0x65])
        case .int(let i): out.append(contentsOf: String(i).utf8)
        case .double(let d): out.append(contentsOf: JSONValue.javaStyle(d).utf8)
        case .string(let s): JSONValue.writeEscaped(s, into: &out)
        case .array(let items):
            out.append(0x5B)
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(0x2C) }
                item.write(into: &out)
            }
            out.append(0x5D)
        case .object(let pairs):
            out.append(0x7B)
            for (i, (key, value)) in pairs.enumerated() {
                if i > 0 { out.append(0x2C) }
                JSONValue.writeEscaped(key, into: &out)
                out.append(0x3A)
                value.write(into: &out)
            }
            out.append(0x7D)
        }
    }

    static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    static func writeEscaped(_ s: String, into out: inout [UInt8]) {
        out.append(0x22)
        // Most strings need no escape: copy them in one go.
        if !s.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) {
            out.append(contentsOf: s.utf8)
            out.append(0x22)
            return
        }
        for b in s.utf8 {
            switch b {
            case 0x22: out.append(0x5C); out.append(0x22)
            case 0x5C: out.append(0x5C); out.append(0x5C)
            case 0x0A: out.append(0x5C); out.append(0x6E)
            case 0x0D: out.append(0x5C); out.append(0x72)
            case 0x09: out.append(0x5C); out.append(0x74)
            case 0x08: out.append(0x5C); out.append(0x62)
            case 0x0C: out.append(0x5C); out.append(0x66)
            case 0..<0x20:
                out.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, hexDigits[Int(b >> 4)], hexDigits[Int(b & 0xF)]])
            default: out.append(b)
            }
        }
        out.append(0x22)
    }

    /// Java's `Double.toString` layout over Swift's shortest round-trip digits:
    /// plain decimal with at least one fraction digit when 1e-3 <= |d| < 1e7, else `d.dddE±n`.
    static func javaStyle(_ d: Double) -> String {
        guard d.isFinite else { return "null" }  // JSON has no NaN/Infinity
        if d == 0 { return d.sign == .minus ? "-0.0" : "0.0" }
        // Fast path for whole numbers (most currency values): no description parsing.
        if d == d.rounded(), abs(d) < 1e15 {
            let whole = Int(d)
            if abs(d) < 1e7 { return String(whole) + ".0" }
            var mantissa = abs(whole)
            var exponent = 0
            while mantissa >= 10 { mantissa /= 10; exponent += 1 }
            var significant = abs(whole)
            while significant % 10 == 0 { significant /= 10 }
            let digits = String(significant)
            let rest = digits.dropFirst()
            return (whole < 0 ? "-" : "") + digits.prefix(1) + "." + (rest.isEmpty ? "0" : rest) + "E"
                + String(exponent)
        }
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
