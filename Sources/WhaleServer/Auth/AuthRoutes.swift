import Foundation
import WhaleModel
import NIOPosix
import WhaleCrypto

/// `POST /api/user/login` and `POST /api/user/refresh` with the original's envelope and codes:
/// 1000 success, 4000 malformed body, 4001 bad credentials, 4004 bad refresh token; a missing,
/// forged or wrong-algorithm access token on refresh gets HTTP 403 with code 4003.
struct AuthRoutes: Sendable {
    let server: ReferenceServer

    func login(_ request: ServerRequest) async throws -> ServerResponse {
        guard let body = request.body(limit: 64 * 1024),
            let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any],
            let email = object["email"] as? String, let password = object["password"] as? String
        else {
            server.metrics.error("4000")
            return RESTEnvelope.error(4000, "Invalid request - malformed user").response
        }
        guard let credential = server.model.credential(email: email) else {
            server.metrics.error("4001")
            return RESTEnvelope.error(4001, "Email address not found").response
        }
        // bcrypt takes tens of milliseconds: off the cooperative pool.
        let matches = try await NIOThreadPool.singleton.runIfActive {
            Bcrypt.verify(password, hash: credential.passwordHash)
        }
        guard matches else {
            server.metrics.error("4001")
            return RESTEnvelope.error(4001, "Invalid login credentials").response
        }
        return try await signedIn(userId: credential.userId, message: "Logged in")
    }

    func refresh(_ request: ServerRequest) async throws -> ServerResponse {
        let userId: String
        do {
            // The expired access token comes with the refresh token; its signature must hold.
            userId = try server.tokens.verify(
                request.header("authorization").map(Self.stripBearer), now: server.now(), allowExpired: true)
        } catch {
            server.metrics.error("4003")
            return RESTEnvelope.error(4003, error.description, status: .forbidden).response
        }
        guard let body = request.body(limit: 64 * 1024),
            let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any],
            let refreshToken = object["refreshToken"] as? String
        else {
            server.metrics.error("4000")
            return RESTEnvelope.error(4000, "Invalid request - malformed refresh token").response
        }
        guard let spent = server.refreshTokens.exchange(refreshToken, userId: userId, now: server.now()) else {
            server.metrics.error("4004")
            return RESTEnvelope.error(4004, "Refresh token invalid").response
        }
        // Rotation: the answer carries a new refresh token; the one presented is spent (persisted
        // as such with the new one, so a restart does not revive it).
        return try await signedIn(userId: userId, message: "Tokens refreshed", spent: spent)
    }

    /// Code 1000: the user (with its organization and that organization's users) and tokens.
    private func signedIn(userId: String, message: String, spent: StoredRefreshToken? = nil) async throws
        -> ServerResponse
    {
        guard let user = server.model.userResponse(userId: userId) else {
            return RESTEnvelope.error(4001, "Email address not found").response
        }
        let now = server.now()
        let issued = server.refreshTokens.issue(userId: userId, now: now)
        try await server.committer.commit(StorageBatch(refreshTokens: [spent, issued.record].compactMap { $0 }))
        let tokens = ["accessToken": server.tokens.issue(userId: userId, now: now), "refreshToken": issued.token]
        return RESTEnvelope(code: 1000, message: message, hasError: false, data: ["response": user, "tokens": tokens])
            .response
    }

    static func stripBearer(_ value: String) -> String {
        value.hasPrefix("Bearer ") ? String(value.dropFirst(7)) : value
    }
}
