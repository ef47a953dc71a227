/// Salesforce record ids: 15 case-sensitive characters plus a 3-character case-safe suffix.
public enum SalesforceId {
    static let suffixAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ012345")
    static let base62 = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")

    /// The canonical 18-character form of an id; nil when `id` is not an id.
    /// A 15-character id is case-sensitive: the suffix encodes, per 5-character chunk, which
    /// characters are upper case (bit i set when character i is A-Z), as one of `A-Z0-5`.
    /// An 18-character id is case-insensitive: its suffix restores the case of the first 15.
    public static func to18(_ id: String) -> String? {
        let chars = Array(id)
        guard chars.count == 15 || chars.count == 18, chars.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) })
        else { return nil }
        var base = Array(chars[0..<15])
        if chars.count == 18 {
            for chunk in 0..<3 {
                guard let flags = suffixAlphabet.firstIndex(of: Character(chars[15 + chunk].uppercased())) else { return nil }
                for i in 0..<5 {
                    let c = base[chunk * 5 + i]
                    if flags & (1 << i) != 0 {
                        guard c.isLetter else { return nil }  // only letters can be upper case
                        base[chunk * 5 + i] = Character(c.uppercased())
                    } else {
                        base[chunk * 5 + i] = Character(c.lowercased())
                    }
                }
            }
        }
        var suffix = ""
        for chunk in 0..<3 {
            var flags = 0
            for i in 0..<5 where base[chunk * 5 + i].isUppercase { flags |= 1 << i }
            suffix.append(suffixAlphabet[flags])
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
