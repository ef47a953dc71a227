/// Salesforce record ids: 15 case-sensitive characters plus a 3-character case-safe suffix.
public enum SalesforceId {
    static let suffixAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ012345")
    static let base62 = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")

    /// The 18-character form of a 15- or 18-character id; nil when `id` is not a valid id.
    /// The suffix encodes, per 5-character chunk, which characters are upper case
    /// (bit i set when character i is A-Z), as one of `A-Z0-5`.
    public static func to18(_ id: String) -> String? {
        let chars = Array(id)
        guard chars.count == 15 || chars.count == 18, chars.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) })
        else { return nil }
        let base = Array(chars[0..<15])
        var suffix = ""
        for chunk in 0..<3 {
            var flags = 0
            for i in 0..<5 where base[chunk * 5 + i].isUppercase { flags |= 1 << i }
            suffix.append(suffixAlphabet[flags])
        }
        if chars.count == 18 {
            // An 18-char id is valid only if its suffix agrees (case-insensitively) with its base.
            guard String(chars[15..<18]).uppercased() == suffix else { return nil }
        }
        return String(base) + suffix
    }

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
