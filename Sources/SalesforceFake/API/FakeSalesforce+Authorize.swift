import WhaleCore

extension FakeSalesforce {
    /// `GET /services/oauth2/authorize`: the browser flows, without a login page.
    ///
    /// - `response_type=token` (implicit, what the Whaler app uses): 302 to `redirect_uri` with
    ///   `#access_token=…&refresh_token=…&signature=…&scope=…&instance_url=…&id=…&token_type=Bearer&issued_at=…&state=…`.
    /// - `response_type=code`: 302 to `redirect_uri?code=…&state=…`, exchanged at the token endpoint.
    ///
    /// The user is chosen without a form: `login_hint` (or `username`) names them; otherwise the
    /// app's `runAsUsername`; otherwise the org's first login principal. An unknown `login_hint`
    /// redirects with `error=access_denied`.
    func oauthAuthorize(_ request: SFRequest, outcome: inout Outcome) -> SFResponse {
        var q = request.queryParameters
        if request.method == "POST" {
            for (name, value) in QueryString.parameters(request.bodyText) where q[name] == nil { q[name] = value }
        }
        guard let clientId = q["client_id"], let app = connectedApps.first(where: { $0.clientId == clientId }) else {
            return Self.oauthError(400, "invalid_client_id", "client identifier invalid")
        }
        guard let redirect = q["redirect_uri"], !redirect.isEmpty else {
            return Self.oauthError(400, "redirect_uri_missing", "redirect_uri must be provided")
        }
        guard app.redirectURIs.isEmpty || app.redirectURIs.contains(redirect) else {
            return Self.oauthError(400, "redirect_uri_mismatch", "redirect_uri must match configuration")
        }
        let state = q["state"]
        let responseType = q["response_type"] ?? ""
        let hint = q["login_hint"] ?? q["username"]
        let credential = hint.map { org.credential(username: $0) } ?? runAsCredential(app)
        outcome.client = "authorize:" + (credential?.username ?? hint ?? "")
        switch responseType {
        case "token":
            guard let credential else {
                return Self.redirect(
                    redirect, fragment: true,
                    [("error", "access_denied"), ("error_description", "end-user denied authorization")], state: state)
            }
            let fields = tokenFields(credential, app: app, baseURL: baseURL(for: request), withRefreshToken: true)
            return Self.redirect(redirect, fragment: true, fields, state: state)
        case "code":
            guard let credential else {
                return Self.redirect(
                    redirect, fragment: false,
                    [("error", "access_denied"), ("error_description", "end-user denied authorization")], state: state)
            }
            let code = self.state.withLock { s -> String in
                var rng = SplitMix64(
                    seed: config.seed ^ FaultPlan.fnv1a("code:" + credential.username)
                        &+ UInt64(s.authorizationCodes.count + s.tokensIssued))
                let code = "aPrx" + Self.hex(rng.next()) + Self.hex(rng.next())
                s.authorizationCodes[code] = AuthorizationCode(
                    username: credential.username, clientId: app.clientId, redirectURI: redirect)
                return code
            }
            return Self.redirect(redirect, fragment: false, [("code", code)], state: state)
        default:
            return Self.redirect(
                redirect, fragment: false,
                [("error", "unsupported_response_type"), ("error_description", "response type not supported")],
                state: state)
        }
    }

    /// A 302 to `base` with the parameters in the fragment (implicit flow) or the query.
    static func redirect(_ base: String, fragment: Bool, _ params: [(String, String)], state: String?) -> SFResponse {
        var all = params
        if let state { all.append(("state", state)) }
        let encoded = all.map { "\($0.0)=\(QueryString.encode($0.1))" }.joined(separator: "&")
        let separator = fragment ? "#" : (base.contains("?") ? "&" : "?")
        return SFResponse(
            status: 302,
            headers: [
                ("Location", base + separator + encoded),
                ("Cache-Control", "no-cache,must-revalidate,max-age=0,no-store,private"),
            ])
    }
}
