import Crypto
import Foundation
import NIOConcurrencyHelpers

/// Refresh tokens: random, 90 days, bound to one user. Only their SHA-256 is kept (in memory and
/// in storage), so a leaked database signs nobody in.
final class RefreshTokenStore: Sendable {
    static let lifetime: Int64 = 90 * 24 * 3600
    private let tokens: NIOLockedValueBox<[String: StoredRefreshToken]>

    init(loaded: [StoredRefreshToken]) {
        tokens = NIOLockedValueBox(Dictionary(loaded.map { ($0.tokenHash, $0) }, uniquingKeysWith: { $1 }))
    }

    /// A new token for `userId` and the record to persist (persist it before handing it out).
    func issue(userId: String, now: Int64) -> (token: String, record: StoredRefreshToken) {
        var bytes = [UInt8](repeating: 0, count: 48)
        var generator = SystemRandomNumberGenerator()
        for index in bytes.indices { bytes[index] = generator.next() }
        let token = Data(bytes).base64EncodedString()
        let record = StoredRefreshToken(tokenHash: Self.hash(token), userId: userId, expiresAt: now + Self.lifetime)
        tokens.withLockedValue { $0[record.tokenHash] = record }
        return (token, record)
    }

    /// Whether `token` is a live refresh token of `userId`.
    func isValid(_ token: String, userId: String, now: Int64) -> Bool {
        guard let record = tokens.withLockedValue({ $0[Self.hash(token)] }) else { return false }
        return record.userId == userId && record.expiresAt > now
    }

    static func hash(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}
