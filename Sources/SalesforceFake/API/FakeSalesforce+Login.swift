import Foundation
import WhaleCore

extension FakeSalesforce {
    /// `POST /services/Soap/u/{version}` (or `/c/`): username plus password-and-token in, session out.
    func soapLogin(_ request: SFRequest, outcome: inout Outcome) -> SFResponse {
        let body = request.bodyText
        guard body.contains("login"), let username = SOAPLogin.element("username", in: body),
            let password = SOAPLogin.element("password", in: body)
        else {
            return .xml(
                500,
                SOAPLogin.clientFault("Element {urn:partner.soap.sforce.com}login expected with username and password"))
        }
        outcome.client = "login:" + username
        guard let credential = org.credential(username: username), credential.accepts(password: password) else {
            return .xml(500, SOAPLogin.loginFault())
        }
        let session = openSession(credential, clientId: nil)
        let version = request.path.split(separator: "/").last.map(String.init) ?? org.settings.apiVersionMax
        let base = baseURL(for: request)
        let orgId = org.settings.orgId
        let user = org.record(id: credential.userId)
        func text(_ field: String) -> String? { user?[field]?.stringValue }
        let userInfo: [(String, String?)] = [
            ("accessibilityMode", "false"), ("chatterExternal", "false"), ("currencySymbol", "$"),
            ("orgAttachmentFileSizeLimit", "5242880"), ("orgDefaultCurrencyIsoCode", "USD"),
            ("orgDefaultCurrencyLocale", "en_US"), ("orgDisallowHtmlAttachments", "false"),
            ("orgHasPersonAccounts", "false"), ("organizationId", orgId), ("organizationMultiCurrency", "false"),
            ("organizationName", org.settings.name), ("profileId", text("ProfileId") ?? "00e000000000001AAA"),
            ("roleId", text("UserRoleId")), ("sessionSecondsValid", "7200"), ("userDefaultCurrencyIsoCode", nil),
            ("userEmail", text("Email") ?? credential.username), ("userFullName", text("Name") ?? credential.username),
            ("userId", credential.userId), ("userLanguage", "en_US"), ("userLocale", "en_US"),
            ("userName", credential.username), ("userTimeZone", org.settings.timeZone), ("userType", "Standard"),
            ("userUiSkin", "Theme3"),
        ]
        let xml = SOAPLogin.success(
            sessionId: session.token, serverURL: "\(base)/services/Soap/u/\(version)/\(orgId)",
            metadataServerURL: "\(base)/services/Soap/m/\(version)/\(orgId)", userId: credential.userId,
            userInfo: userInfo)
        return .xml(200, xml)
    }

    /// Issues a session token for `credential`. Tokens are `<org id 15>!AQ<hex>`, derived from the
    /// seed, the username and how many times that user logged in: replayable whatever the order
    /// in which different users log in.
    func openSession(_ credential: Credential, clientId: String?) -> SFSession {
        state.withLock { s in
            let count = s.logins[credential.username.lowercased(), default: 0]
            s.logins[credential.username.lowercased()] = count + 1
            var rng = SplitMix64(
                seed: config.seed ^ FaultPlan.fnv1a("session:" + credential.username.lowercased()) &+ UInt64(count)
                    &* 0x9E37_79B9_7F4A_7C15)
            var token = String(org.settings.orgId.prefix(15)) + "!AQ"
            for _ in 0..<4 { token += Self.hex(rng.next()) }
            let session = SFSession(
                token: token, username: credential.username, userId: credential.userId, clientId: clientId)
            s.sessions[token] = session
            return session
        }
    }

    static func hex(_ value: UInt64) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: 16 - text.count) + text
    }
}
