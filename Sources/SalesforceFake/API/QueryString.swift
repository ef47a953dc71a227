/// Query-string and form decoding done by hand, because Foundation's `URLComponents.queryItems`
/// leaves `+` as a plus, while browsers, `requests` and curl's `--data-urlencode` send spaces as `+`.
public enum QueryString {
    /// Decodes `%XX` escapes and `+` as space. Bad escapes are kept literally rather than rejected,
    /// as lenient servers do.
    public static func decode(_ text: Substring, plusAsSpace: Bool = true) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = Array(text.utf8)[...]
        while let byte = iterator.popFirst() {
            switch byte {
            case UInt8(ascii: "+") where plusAsSpace:
                bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                if iterator.count >= 2, let high = hexValue(iterator[iterator.startIndex]),
                    let low = hexValue(iterator[iterator.startIndex + 1])
                {
                    bytes.append(high << 4 | low)
                    iterator = iterator.dropFirst(2)
                } else {
                    bytes.append(byte)
                }
            default:
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Decodes a percent-encoded path segment (`+` stays a plus in paths).
    public static func decodePath(_ text: Substring) -> String {
        decode(text, plusAsSpace: false)
    }

    /// All `name=value` pairs in order, decoded.
    public static func pairs(_ query: String) -> [(String, String)] {
        query.split(separator: "&", omittingEmptySubsequences: true).map { part in
            if let eq = part.firstIndex(of: "=") {
                return (decode(part[..<eq]), decode(part[part.index(after: eq)...]))
            }
            return (decode(part), "")
        }
    }

    /// Parameters by name; the first occurrence of a repeated name wins.
    public static func parameters(_ query: String) -> [String: String] {
        var result: [String: String] = [:]
        for (name, value) in pairs(query) where result[name] == nil { result[name] = value }
        return result
    }

    /// Percent-encodes a value for a query string or URL fragment (unreserved characters kept).
    public static func encode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF")
                out.append("%")
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0xF)])
            }
        }
        return out
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
