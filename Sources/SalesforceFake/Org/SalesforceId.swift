/// Salesforce record ids: 15 case-sensitive characters plus a 3-character case-safe suffix.
public enum SalesforceId {
    static let base62 = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")

    /// The canonical 18-character form of an id; nil when `id` is not an id.
    /// A 15-character id is case-sensitive: the suffix encodes, per 5-character chunk, which
    /// characters are upper case (bit i set when character i is A-Z), as one of `A-Z0-5`.
    /// An 18-character id is case-insensitive: its suffix restores the case of the first 15.
    public static func to18(_ id: String) -> String? {
        // Works on ASCII bytes: ids are checked on every fixture line and every id literal.
        var bytes = Array(id.utf8)
        guard bytes.count == 15 || bytes.count == 18 else { return nil }
        for b in bytes where !(isDigit(b) || isUpper(b) || isLower(b)) { return nil }
        if bytes.count == 18 {
            for chunk in 0..<3 {
                guard
                    let flags = suffixBytes.firstIndex(
                        of: isLower(bytes[15 + chunk]) ? bytes[15 + chunk] - 32 : bytes[15 + chunk])
                else { return nil }
                for i in 0..<5 {
                    let at = chunk * 5 + i
                    if flags & (1 << i) != 0 {
                        guard !isDigit(bytes[at]) else { return nil }  // only letters can be upper case
                        if isLower(bytes[at]) { bytes[at] -= 32 }
                    } else if isUpper(bytes[at]) {
                        bytes[at] += 32
                    }
                }
            }
            bytes.removeLast(3)
        }
        for chunk in 0..<3 {
            var flags = 0
            for i in 0..<5 where isUpper(bytes[chunk * 5 + i]) { flags |= 1 << i }
            bytes.append(suffixBytes[flags])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static let suffixBytes: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ012345".utf8)
    @inline(__always) static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
    @inline(__always) static func isUpper(_ b: UInt8) -> Bool { b >= 0x41 && b <= 0x5A }
    @inline(__always) static func isLower(_ b: UInt8) -> Bool { b >= 0x61 && b <= 0x7A }

    /// A deterministic new id: key prefix, a fixed pod part, then `counter` in base 62 (6 digits).
    static func make(prefix: String, counter: Int) -> String {
        var digits: [Character] = []
        var n = counter
        for _ in 0..<6 {
            digits.append(base62[n % 62])
            n /= 62
        }
        let base15 = prefix + "5g0000" + String(digits.reversed())
        return to18(base15)!
    }
}
