import WhaleCrypto
import Foundation

/// Access tokens as the original issues them: JWT, HS256, claim `userID`, 60 minutes. Checked for
/// real: three base64url parts, `alg` exactly `HS256` (so `none` and algorithm swaps are refused),
/// an HMAC-SHA256 signature compared in constant time, and `exp`.
///
/// ```swift
/// let tokens = AccessTokens(secret: Data("s3cret".utf8))
/// let jwt = tokens.issue(userId: "u1", now: 1_700_000_000)
/// try tokens.verify(jwt, now: 1_700_000_060)           // "u1"
/// ```
public struct AccessTokens: Sendable {
    /// Why a token was refused; the message goes to the client.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        case missing, malformed, wrongAlgorithm(String), badSignature, expired
        public var description: String {
            switch self {
            case .missing: "Missing auth token"
            case .malformed: "Invalid/Malformed auth token"
            case .wrongAlgorithm(let alg): "Invalid authentication token: algorithm \(alg) is not HS256"
            case .badSignature: "Invalid authentication token: signature does not match"
            case .expired: "Invalid authentication token: token is expired"
            }
        }
    }

    private let key: [UInt8]
    /// Lifetime of an access token, in seconds (the original's 60 minutes).
    public var lifetime: Int64 = 3600
    /// Seconds past `exp` a token is still accepted (clock skew between issuer and checker).
    /// Zero: this server signs and checks its own tokens on one clock. The
    /// `token-expiry-leeway-day` catalog fault sets a day.
    public var leeway: Int64 = 0

    public init(secret: Data) {
        key = Array(secret)
    }

    /// A signed token for `userId`, valid from `now` (seconds since 1970) for ``lifetime``.
    public func issue(userId: String, now: Int64) -> String {
        let header = #"{"alg":"HS256","typ":"JWT"}"#
        let payload = #"{"userID":\#(jsonString(userId)),"iat":\#(now),"exp":\#(now + lifetime),"iss":"whalesim"}"#
        let signingInput = Self.base64URL(Data(header.utf8)) + "." + Self.base64URL(Data(payload.utf8))
        let mac = Digest.hmacSHA256(key: key, data: Array(signingInput.utf8))
        return signingInput + "." + Self.base64URL(Data(mac))
    }

    /// The `userID` of a valid token. `allowExpired` is for `/api/user/refresh`, which takes the
    /// expired access token next to the refresh token (the signature must still be right).
    public func verify(_ token: String?, now: Int64, allowExpired: Bool = false) throws(Failure) -> String {
        guard let token, !token.isEmpty else { throw .missing }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = Self.decodeBase64URL(parts[0]),
            let payloadData = Self.decodeBase64URL(parts[1]),
            let signature = Self.decodeBase64URL(parts[2]),
            let header = (try? JSONSerialization.jsonObject(with: headerData)) as? [String: Any],
            let payload = (try? JSONSerialization.jsonObject(with: payloadData)) as? [String: Any]
        else { throw .malformed }
        guard let alg = header["alg"] as? String, alg == "HS256" else {
            throw .wrongAlgorithm((header["alg"] as? String) ?? "missing")
        }
        let expected = Digest.hmacSHA256(key: key, data: Array((parts[0] + "." + parts[1]).utf8))
        guard Digest.constantTimeEqual(expected, signature) else {
            throw .badSignature
        }
        guard let userId = payload["userID"] as? String, !userId.isEmpty else { throw .malformed }
        guard let exp = (payload["exp"] as? NSNumber)?.int64Value else { throw .malformed }
        if !allowExpired, exp + leeway <= now { throw .expired }
        return userId
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func decodeBase64URL(_ text: Substring) -> Data? {
        guard text.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }), text.allSatisfy(\.isASCII)
        else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }

    private func jsonString(_ value: String) -> String {
        let data = try? JSONSerialization.data(withJSONObject: [value], options: [.fragmentsAllowed])
        let array = data.flatMap { String(data: $0, encoding: .utf8) } ?? "[\"\"]"
        return String(array.dropFirst().dropLast())
    }
}
