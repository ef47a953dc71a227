import WhaleCrypto
import Foundation
import WhaleCore

extension FakeSalesforce {
    /// `POST /services/oauth2/token`, form-encoded: grants `password`, `refresh_token`,
    /// `client_credentials` and `authorization_code`. Client credentials come from the form or
    /// from HTTP Basic auth.
    func oauthToken(_ request: SFRequest, outcome: inout Outcome) -> SFResponse {
        var form = QueryString.parameters(request.bodyText)
        // Salesforce also reads parameters from the URL of a POST; the body wins.
        for (name, value) in request.queryParameters where form[name] == nil { form[name] = value }
        if let basic = Self.basicCredentials(request) {
            form["client_id"] = form["client_id"] ?? basic.id
            form["client_secret"] = form["client_secret"] ?? basic.secret
        }
        guard let grant = form["grant_type"], !grant.isEmpty else {
            return Self.oauthError(400, "unsupported_grant_type", "grant type not supported")
        }
        guard let clientId = form["client_id"], let app = connectedApps.first(where: { $0.clientId == clientId }) else {
            return Self.oauthError(400, "invalid_client_id", "client identifier invalid")
        }
        let secret = form["client_secret"]
        if let secret, secret != app.clientSecret {
            return Self.oauthError(400, "invalid_client", "invalid client credentials")
        }
        let baseURL = baseURL(for: request)
        switch grant {
        case "password":
            guard secret != nil else { return Self.oauthError(400, "invalid_client", "invalid client credentials") }
            outcome.client = "oauth:" + (form["username"] ?? "")
            guard let username = form["username"], let password = form["password"],
                let credential = org.credential(username: username), credential.accepts(password: password)
            else {
                return Self.oauthError(400, "invalid_grant", "authentication failure")
            }
            return tokenResponse(credential, app: app, baseURL: baseURL, withRefreshToken: true)
        case "refresh_token":
            guard let refresh = form["refresh_token"],
                let grant = state.withLock({ $0.refreshTokens[refresh] }), grant.clientId == app.clientId,
                let credential = org.credential(username: grant.username)
            else {
                return Self.oauthError(400, "invalid_grant", "expired access/refresh token")
            }
            outcome.client = "oauth:" + credential.username
            return tokenResponse(credential, app: app, baseURL: baseURL, withRefreshToken: false)
        case "client_credentials":
            guard secret != nil else { return Self.oauthError(400, "invalid_client", "invalid client credentials") }
            guard let credential = runAsCredential(app) else {
                return Self.oauthError(400, "invalid_grant", "no client credentials user enabled")
            }
            outcome.client = "oauth:" + credential.username
            return tokenResponse(credential, app: app, baseURL: baseURL, withRefreshToken: false)
        case "authorization_code":
            guard let code = form["code"],
                let granted = state.withLock({ $0.authorizationCodes.removeValue(forKey: code) }),
                granted.clientId == app.clientId,
                form["redirect_uri"] == nil || form["redirect_uri"] == granted.redirectURI,
                let credential = org.credential(username: granted.username)
            else {
                return Self.oauthError(400, "invalid_grant", "invalid authorization code")
            }
            outcome.client = "oauth:" + credential.username
            return tokenResponse(credential, app: app, baseURL: baseURL, withRefreshToken: true)
        default:
            return Self.oauthError(400, "unsupported_grant_type", "grant type not supported")
        }
    }

    /// `POST /services/oauth2/revoke` (`token=` in the form or the URL): ends an access token's
    /// session, or withdraws a refresh token. 200 with an empty body; an unknown token is 400
    /// `invalid_token`.
    func oauthRevoke(_ request: SFRequest) -> SFResponse {
        let token = QueryString.parameters(request.bodyText)["token"] ?? request.queryParameters["token"] ?? ""
        let known = state.withLock { s in
            s.sessions.removeValue(forKey: token) != nil || s.refreshTokens.removeValue(forKey: token) != nil
        }
        guard known else { return Self.oauthError(400, "invalid_token", "invalid token") }
        return SFResponse(status: 200)
    }

    /// The fields of a token response, in Salesforce's order.
    func tokenFields(_ credential: Credential, app: ConnectedApp, baseURL: String, withRefreshToken: Bool) -> [(
        String, String
    )] {
        let session = openSession(credential, clientId: app.clientId)
        let issuedAt = state.withLock { s -> Int64 in
            s.tokensIssued += 1
            // The frozen org clock plus one millisecond per token: replayable, and still increasing.
            return Int64((org.settings.now.timeIntervalSince1970 * 1000).rounded()) + Int64(s.tokensIssued)
        }
        let id = "\(baseURL)/id/\(org.settings.orgId)/\(credential.userId)"
        var fields: [(String, String)] = [("access_token", session.token)]
        if withRefreshToken {
            let refresh = state.withLock { s -> String in
                var rng = SplitMix64(seed: config.seed ^ FaultPlan.fnv1a("refresh:" + session.token))
                let token = "5Aep" + Self.hex(rng.next()) + Self.hex(rng.next())
                s.refreshTokens[token] = RefreshGrant(username: credential.username, clientId: app.clientId)
                return token
            }
            fields.append(("refresh_token", refresh))
        }
        fields += [
            ("signature", Self.signature(id: id, issuedAt: String(issuedAt), secret: app.clientSecret)),
            ("scope", "api refresh_token"),
            ("instance_url", baseURL),
            ("id", id),
            ("token_type", "Bearer"),
            ("issued_at", String(issuedAt)),
        ]
        return fields
    }

    func tokenResponse(_ credential: Credential, app: ConnectedApp, baseURL: String, withRefreshToken: Bool)
        -> SFResponse
    {
        let fields = tokenFields(credential, app: app, baseURL: baseURL, withRefreshToken: withRefreshToken)
        return .json(200, .object(fields.map { ($0.0, .string($0.1)) }))
    }

    /// Base64 of HMAC-SHA256 over `id + issued_at`, keyed with the consumer secret; clients verify
    /// token responses with it.
    public static func signature(id: String, issuedAt: String, secret: String) -> String {
        Data(Digest.hmacSHA256(key: Array(secret.utf8), data: Array((id + issuedAt).utf8))).base64EncodedString()
    }

    static func oauthError(_ status: Int, _ error: String, _ description: String) -> SFResponse {
        .json(status, .object([("error", .string(error)), ("error_description", .string(description))]))
    }

    /// `Authorization: Basic base64(id:secret)`.
    static func basicCredentials(_ request: SFRequest) -> (id: String, secret: String)? {
        guard let value = request.header("Authorization"), value.lowercased().hasPrefix("basic "),
            let data = Data(base64Encoded: String(value.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
            let text = String(data: data, encoding: .utf8), let colon = text.firstIndex(of: ":")
        else { return nil }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }

    /// The user a connected app acts as without a login: its `runAsUsername`, else the org's first principal.
    func runAsCredential(_ app: ConnectedApp) -> Credential? {
        if let name = app.runAsUsername { return org.credential(username: name) }
        return org.credentials.first
    }
}
