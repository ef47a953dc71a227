import WhaleCrypto
import Foundation
import NIOConcurrencyHelpers

/// Refresh tokens: random, 90 days, bound to one user. Only their SHA-256 is kept (in memory and
/// in storage), so a leaked database signs nobody in. Rotated: `/api/user/refresh` exchanges one
/// for a new one and the old one is spent, so a copy stolen before the exchange is worthless
/// (and a thief who exchanges first locks the user out, which shows the theft).
final class RefreshTokenStore: Sendable {
    static let lifetime: Int64 = 90 * 24 * 3600
    private let tokens: NIOLockedValueBox<[String: StoredRefreshToken]>
    /// False under the `refresh-token-reuse` catalog fault: exchanged tokens stay valid.
    private let revokesExchanged: Bool

    init(loaded: [StoredRefreshToken], revokesExchanged: Bool = true) {
        tokens = NIOLockedValueBox(Dictionary(loaded.map { ($0.tokenHash, $0) }, uniquingKeysWith: { $1 }))
        self.revokesExchanged = revokesExchanged
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

    /// Spends `token` if it is a live refresh token of `userId`: checked and removed under one
    /// lock, so two refreshes racing with one token cannot both win. Nil when it is not live;
    /// else the record to persist (expired at 0, so a restart does not bring it back).
    func exchange(_ token: String, userId: String, now: Int64) -> StoredRefreshToken? {
        let key = Self.hash(token)
        return tokens.withLockedValue { tokens -> StoredRefreshToken? in
            guard let record = tokens[key], record.userId == userId, record.expiresAt > now else { return nil }
            guard revokesExchanged else { return record }
            tokens[key] = nil
            return StoredRefreshToken(tokenHash: key, userId: userId, expiresAt: 0)
        }
    }

    static func hash(_ token: String) -> String {
        Digest.hex(Digest.sha256(Array(token.utf8)))
    }
}
