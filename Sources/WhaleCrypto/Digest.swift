import CLibcrypto

/// The hashes and MAC whalesim signs and checks with, from OpenSSL's libcrypto: access tokens and
/// Salesforce's token signatures (HMAC-SHA256), refresh tokens at rest (SHA-256), the websocket
/// handshake's accept key (SHA-1). docs/decisions/0055-first-run-build-without-boringssl.md says why
/// libcrypto and not swift-crypto.
public enum Digest {
    /// HMAC-SHA256 of `data` under `key`: 32 bytes.
    public static func hmacSHA256(key: some Collection<UInt8>, data: some Collection<UInt8>) -> [UInt8] {
        let key = Array(key), data = Array(data)
        var out = [UInt8](repeating: 0, count: 32)
        let ok = whale_hmac_sha256(key, key.count, data, data.count, &out)
        // libcrypto fails here only without memory or without SHA-256, and nothing can go on then.
        precondition(ok == 1, "libcrypto's HMAC-SHA256 failed")
        return out
    }

    /// SHA-256 of `data`: 32 bytes.
    public static func sha256(_ data: some Collection<UInt8>) -> [UInt8] {
        let data = Array(data)
        var out = [UInt8](repeating: 0, count: 32)
        precondition(whale_sha256(data, data.count, &out) == 1, "libcrypto's SHA-256 failed")
        return out
    }

    /// SHA-1 of `data`: 20 bytes. Only for the websocket handshake (RFC 6455), never for security.
    public static func sha1(_ data: some Collection<UInt8>) -> [UInt8] {
        let data = Array(data)
        var out = [UInt8](repeating: 0, count: 20)
        precondition(whale_sha1(data, data.count, &out) == 1, "libcrypto's SHA-1 failed")
        return out
    }

    /// Whether `a` and `b` are equal, in time that depends only on their lengths (a MAC check must not
    /// tell an attacker how many of its bytes were right).
    public static func constantTimeEqual(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
        let a = Array(a), b = Array(b)
        guard a.count == b.count else { return false }
        return a.isEmpty || whale_equal_constant_time(a, b, a.count) == 1
    }

    /// Lower-case hexadecimal.
    public static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
