import CCrypt

/// bcrypt password hashes (`$2b$`) through the system's libcrypt (libxcrypt): the hashes the
/// reference server stores for its seeded users and `inviteUser`, checked at login. The format is
/// the OpenBSD one every bcrypt library reads, so a database written by an earlier build still logs in.
///
/// ```swift
/// let hash = Bcrypt.hash("secret", cost: 4)      // "$2b$04$…"
/// Bcrypt.verify("secret", hash: hash)             // true
/// ```
/// Both are slow by design (2^cost rounds): run them off the cooperative pool.
public enum Bcrypt {
    /// A fresh salt from the system's randomness, then the hash. `cost` is clamped to bcrypt's 4...31.
    public static func hash(_ password: String, cost: UInt8) -> String {
        var setting = [CChar](repeating: 0, count: Int(CRYPT_GENSALT_OUTPUT_SIZE))
        let rounds = UInt(min(max(cost, 4), 31))
        guard crypt_gensalt_rn("$2b$", rounds, nil, 0, &setting, Int32(setting.count)) != nil else {
            preconditionFailure("libcrypt has no bcrypt")
        }
        return crypt(password, setting: setting) ?? ""
    }

    /// Whether `password` hashes to `hash`. A hash that is not bcrypt, or malformed, never matches.
    public static func verify(_ password: String, hash: String) -> Bool {
        guard hash.hasPrefix("$2"), let computed = crypt(password, setting: Array(hash.utf8CString)) else {
            return false
        }
        // Constant time: the comparison must not say how much of the hash matched.
        let a = Array(computed.utf8), b = Array(hash.utf8)
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for i in 0..<a.count { difference |= a[i] ^ b[i] }
        return difference == 0
    }

    private static func crypt(_ password: String, setting: [CChar]) -> String? {
        var data = crypt_data()
        let result = withUnsafeMutableBytes(of: &data) { raw -> String? in
            guard let output = crypt_rn(password, setting, raw.baseAddress, Int32(raw.count)) else { return nil }
            let text = String(cString: output)
            // libcrypt answers a failure with a string starting with "*".
            return text.hasPrefix("*") ? nil : text
        }
        return result
    }
}
