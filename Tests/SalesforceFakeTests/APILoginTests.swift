import Foundation
import SalesforceFake
import Testing

/// SOAP login, OAuth grants, the authorize redirect and revoke, through the sans-I/O handler.
@Suite struct APILoginTests {
    static func soapBody(username: String, password: String) -> String {
        """
        <?xml version="1.0" encoding="utf-8" ?>
        <env:Envelope xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
            xmlns:env="http://schemas.xmlsoap.org/soap/envelope/" xmlns:urn="urn:partner.soap.sforce.com">
          <env:Header><urn:CallOptions><urn:client>simple-salesforce</urn:client></urn:CallOptions></env:Header>
          <env:Body><n1:login xmlns:n1="urn:partner.soap.sforce.com">
            <n1:username>\(username)</n1:username><n1:password>\(password)</n1:password>
          </n1:login></env:Body>
        </env:Envelope>
        """
    }

    func soapLogin(
        _ fake: FakeSalesforce, path: String = "/services/Soap/u/59.0?x=.salesforce.com/services/Soap/u/59.0",
        username: String = APITestOrg.username, password: String = APITestOrg.password + APITestOrg.securityToken
    ) -> SFResponse {
        var request = SFRequest(
            method: "POST", target: path, headers: [("Content-Type", "text/xml"), ("SOAPAction", "login")],
            body: Self.soapBody(username: username, password: password))
        request.baseURL = "https://127.0.0.1:8443"
        return fake.handle(request)
    }

    @Test func soapLoginReturnsUnprefixedSessionAndServerURL() throws {
        let fake = FakeSalesforce(org: try APITestOrg.make(), connectedApps: APITestOrg.apps)
        let response = soapLogin(fake)
        #expect(response.status == 200)
        let xml = response.bodyText
        // simple-salesforce reads these with getElementsByTagName: no prefix, no attributes.
        let session = try #require(xml.firstMatch(of: /<sessionId>([^<]+)<\/sessionId>/)?.1)
        #expect(session.hasPrefix("00D000000000001!AQ"))
        #expect(xml.contains("<serverUrl>https://127.0.0.1:8443/services/Soap/u/59.0/00D000000000001AAA</serverUrl>"))
        #expect(xml.contains("<userId>\(APITestOrg.userId)</userId>"))
        #expect(xml.contains("<userName>admin@api.test</userName>"))
        #expect(xml.contains("<organizationId>00D000000000001AAA</organizationId>"))
        // The token works on REST.
        #expect(fake.handle(APITestOrg.get("/services/data/v59.0/limits", token: String(session))).status == 200)
    }

    @Test func soapLoginEnterprisePathAndEscapedXML() throws {
        let fake = FakeSalesforce(org: try APITestOrg.make())
        #expect(soapLogin(fake, path: "/services/Soap/c/42.0").status == 200)
        // simple-salesforce html-escapes the username and password; &amp; must be unescaped.
        let bad = soapLogin(fake, username: "admin@api.test", password: "pw&amp;123TOK")
        #expect(bad.status == 500)
    }

    @Test func soapLoginFailureIsALoginFault() throws {
        let fake = FakeSalesforce(org: try APITestOrg.make())
        for (user, password) in [("admin@api.test", "wrong"), ("nobody@api.test", "pw123TOK"), ("admin@api.test", "")] {
            let response = soapLogin(fake, username: user, password: password)
            #expect(response.status == 500)
            #expect(response.bodyText.contains("<sf:exceptionCode>INVALID_LOGIN</sf:exceptionCode>"))
            #expect(response.bodyText.contains("<sf:LoginFault xsi:type=\"sf:LoginFault\">"))
            #expect(response.header("Content-Type")?.hasPrefix("text/xml") == true)
        }
        // Not a login envelope at all: a client fault, still 500.
        let garbage = fake.handle(SFRequest(method: "POST", target: "/services/Soap/u/59.0", body: "hello"))
        #expect(garbage.status == 500)
        #expect(garbage.bodyText.contains("soapenv:Client"))
        // GET on the SOAP endpoint: 405.
        #expect(fake.handle(SFRequest(method: "GET", target: "/services/Soap/u/59.0")).status == 405)
    }

    @Test func passwordGrantReturnsSignedToken() throws {
        let fake = FakeSalesforce(org: try APITestOrg.make(), connectedApps: APITestOrg.apps)
        var request = APITestOrg.passwordGrant()
        request.baseURL = "https://127.0.0.1:9443"
        let response = fake.handle(request)
        #expect(response.status == 200)
        let json = response.json
        let keys = json.objectValue?.map(\.0) ?? []
        #expect(
            keys == [
                "access_token", "refresh_token", "signature", "scope", "instance_url", "id", "token_type", "issued_at",
            ])
        #expect(json["instance_url"] == "https://127.0.0.1:9443")
        #expect(json["token_type"] == "Bearer")
        #expect(json["id"] == .string("https://127.0.0.1:9443/id/00D000000000001AAA/\(APITestOrg.userId)"))
        let id = try #require(json["id"]?.stringValue), issuedAt = try #require(json["issued_at"]?.stringValue)
        #expect(Int64(issuedAt) != nil)
        #expect(
            json["signature"]?.stringValue
                == FakeSalesforce.signature(id: id, issuedAt: issuedAt, secret: APITestOrg.appSecret))
        // Independent HMAC check: a wrong secret gives another signature.
        #expect(json["signature"]?.stringValue != FakeSalesforce.signature(id: id, issuedAt: issuedAt, secret: "other"))
    }

    @Test func oauthErrors() throws {
        let fake = FakeSalesforce(org: try APITestOrg.make(), connectedApps: APITestOrg.apps)
        let badPassword = fake.handle(APITestOrg.passwordGrant(password: "nope"))
        #expect(badPassword.status == 400)
        #expect(
            badPassword.json == .object([("error", "invalid_grant"), ("error_description", "authentication failure")]))
        #expect(fake.handle(APITestOrg.passwordGrant(username: "ghost@api.test")).json["error"] == "invalid_grant")
        #expect(fake.handle(APITestOrg.passwordGrant(secret: "bad")).json["error"] == "invalid_client")
        let unknownClient = fake.handle(
            APITestOrg.form("/services/oauth2/token", [("grant_type", "password"), ("client_id", "nope")]))
        #expect(unknownClient.status == 400 && unknownClient.json["error"] == "invalid_client_id")
        let noGrant = fake.handle(APITestOrg.form("/services/oauth2/token", [("client_id", APITestOrg.appId)]))
        #expect(noGrant.json["error"] == "unsupported_grant_type")
        let oddGrant = fake.handle(
            APITestOrg.form("/services/oauth2/token", [("grant_type", "magic"), ("client_id", APITestOrg.appId)]))
        #expect(oddGrant.json["error"] == "unsupported_grant_type")
        let badRefresh = fake.handle(
            APITestOrg.form(
                "/services/oauth2/token",
                [("grant_type", "refresh_token"), ("client_id", APITestOrg.appId), ("refresh_token", "x")]))
        #expect(badRefresh.status == 400 && badRefresh.json["error"] == "invalid_grant")
    }

    @Test func refreshAndClientCredentialsGrants() throws {
        let fake = FakeSalesforce(org: try APITestOrg.make(), connectedApps: APITestOrg.apps)
        let first = fake.handle(APITestOrg.passwordGrant()).json
        let refresh = try #require(first["refresh_token"]?.stringValue)
        let renewed = fake.handle(
            APITestOrg.form(
                "/services/oauth2/token",
                [("grant_type", "refresh_token"), ("client_id", APITestOrg.appId), ("refresh_token", refresh)]))
        #expect(renewed.status == 200)
        #expect(renewed.json["refresh_token"] == nil)
        #expect(renewed.json["access_token"] != first["access_token"])
        // Both tokens work.
        for token in [first["access_token"], renewed.json["access_token"]].compactMap({ $0?.stringValue }) {
            #expect(fake.handle(APITestOrg.get("/services/data/v59.0/limits", token: token)).status == 200)
        }
        // client_credentials with HTTP Basic acts as the app's run-as user.
        let basic = Data("\(APITestOrg.appId):\(APITestOrg.appSecret)".utf8).base64EncodedString()
        var request = APITestOrg.form("/services/oauth2/token", [("grant_type", "client_credentials")])
        request.headers.append(("Authorization", "Basic \(basic)"))
        let cc = fake.handle(request)
        #expect(cc.status == 200)
        #expect(cc.json["id"]?.stringValue?.hasSuffix("/005000000000002AAA") == true)
        // Without the secret: refused.
        let noSecret = fake.handle(
            APITestOrg.form(
                "/services/oauth2/token", [("grant_type", "client_credentials"), ("client_id", APITestOrg.appId)]))
        #expect(noSecret.json["error"] == "invalid_client")
    }

    @Test func implicitFlowRedirectsWithTokenInFragment() throws {
        let fake = FakeSalesforce(org: try APITestOrg.make(), connectedApps: APITestOrg.apps)
        let target =
            "/services/oauth2/authorize?response_type=token&client_id=\(APITestOrg.appId)&redirect_uri=\(QueryString.encode(APITestOrg.redirect))&state=xyz+1&login_hint=admin%40api.test"
        var request = SFRequest(method: "GET", target: target)
        request.baseURL = "http://127.0.0.1:8080"
        let response = fake.handle(request)
        #expect(response.status == 302)
        let location = try #require(response.header("Location"))
        #expect(location.hasPrefix(APITestOrg.redirect + "#access_token="))
        let fragment = QueryString.parameters(String(location.split(separator: "#")[1]))
        #expect(fragment["state"] == "xyz 1")
        #expect(fragment["token_type"] == "Bearer")
        #expect(fragment["instance_url"] == "http://127.0.0.1:8080")
        #expect(fragment["refresh_token"] != nil)
        let id = try #require(fragment["id"]), issuedAt = try #require(fragment["issued_at"])
        #expect(id.hasSuffix("/\(APITestOrg.userId)"))
        #expect(
            fragment["signature"] == FakeSalesforce.signature(id: id, issuedAt: issuedAt, secret: APITestOrg.appSecret))
        let token = try #require(fragment["access_token"])
        #expect(fake.handle(APITestOrg.get("/services/data/v59.0/limits", token: token)).status == 200)
        // The refresh token from the fragment works at the token endpoint without a secret.
        let refreshed = fake.handle(
            APITestOrg.form(
                "/services/oauth2/token",
                [
                    ("grant_type", "refresh_token"), ("client_id", APITestOrg.appId),
                    ("refresh_token", fragment["refresh_token"]!),
                ]))
        #expect(refreshed.status == 200)
    }

    @Test func authorizeChoosesUserAndRejectsBadInput() throws {
        let fake = FakeSalesforce(org: try APITestOrg.make(), connectedApps: APITestOrg.apps)
        let redirect = QueryString.encode(APITestOrg.redirect)
        // No login_hint: the app's run-as user.
        let plain = fake.handle(
            SFRequest(
                method: "GET",
                target:
                    "/services/oauth2/authorize?response_type=token&client_id=\(APITestOrg.appId)&redirect_uri=\(redirect)"
            ))
        #expect(plain.header("Location")?.contains("005000000000002AAA") == true)
        // Unknown login_hint: redirect with access_denied.
        let unknown = fake.handle(
            SFRequest(
                method: "GET",
                target:
                    "/services/oauth2/authorize?response_type=token&client_id=\(APITestOrg.appId)&redirect_uri=\(redirect)&login_hint=ghost"
            ))
        #expect(unknown.status == 302 && unknown.header("Location")?.contains("#error=access_denied") == true)
        // Unknown client, redirect mismatch, missing redirect: 400, no redirect.
        #expect(
            fake.handle(
                SFRequest(
                    method: "GET",
                    target: "/services/oauth2/authorize?response_type=token&client_id=x&redirect_uri=\(redirect)")
            ).json["error"] == "invalid_client_id")
        #expect(
            fake.handle(
                SFRequest(
                    method: "GET",
                    target:
                        "/services/oauth2/authorize?response_type=token&client_id=\(APITestOrg.appId)&redirect_uri=http%3A%2F%2Fevil"
                )
            ).json["error"] == "redirect_uri_mismatch")
        #expect(
            fake.handle(
                SFRequest(
                    method: "GET",
                    target: "/services/oauth2/authorize?response_type=token&client_id=\(APITestOrg.appId)")
            ).status == 400)
        // Unsupported response type: redirect with the error in the query.
        let odd = fake.handle(
            SFRequest(
                method: "GET",
                target:
                    "/services/oauth2/authorize?response_type=id_token&client_id=\(APITestOrg.appId)&redirect_uri=\(redirect)"
            ))
        #expect(odd.header("Location")?.contains("?error=unsupported_response_type") == true)
    }

    @Test func authorizationCodeFlow() throws {
        let fake = FakeSalesforce(org: try APITestOrg.make(), connectedApps: APITestOrg.apps)
        let redirect = QueryString.encode(APITestOrg.redirect)
        let response = fake.handle(
            SFRequest(
                method: "GET",
                target:
                    "/services/oauth2/authorize?response_type=code&client_id=\(APITestOrg.appId)&redirect_uri=\(redirect)&state=s"
            ))
        let location = try #require(response.header("Location"))
        let query = QueryString.parameters(String(location.split(separator: "?")[1]))
        let code = try #require(query["code"])
        #expect(query["state"] == "s")
        let exchange = {
            fake.handle(
                APITestOrg.form(
                    "/services/oauth2/token",
                    [
                        ("grant_type", "authorization_code"), ("client_id", APITestOrg.appId),
                        ("client_secret", APITestOrg.appSecret), ("code", code), ("redirect_uri", APITestOrg.redirect),
                    ]))
        }
        #expect(exchange().status == 200)
        // Codes are single use.
        #expect(exchange().json["error"] == "invalid_grant")
    }

    @Test func revokeEndsTheSession() throws {
        let (fake, token) = try APITestOrg.fakeWithSession()
        #expect(fake.handle(APITestOrg.get("/services/data/v59.0/limits", token: token)).status == 200)
        #expect(fake.handle(APITestOrg.form("/services/oauth2/revoke", [("token", token)])).status == 200)
        #expect(
            fake.handle(APITestOrg.get("/services/data/v59.0/limits", token: token)).errorCode == "INVALID_SESSION_ID")
        #expect(
            fake.handle(APITestOrg.form("/services/oauth2/revoke", [("token", token)])).json["error"] == "invalid_token"
        )
    }

    @Test func tokensReplayWithTheSameSeed() throws {
        let a = try APITestOrg.fakeWithSession(config: FakeSalesforceConfig(seed: 9)).1
        let b = try APITestOrg.fakeWithSession(config: FakeSalesforceConfig(seed: 9)).1
        let c = try APITestOrg.fakeWithSession(config: FakeSalesforceConfig(seed: 10)).1
        #expect(a == b)
        #expect(a != c)
    }

    @Test func identityURLOfATokenResponse() throws {
        let fake = FakeSalesforce(org: try APITestOrg.make(), connectedApps: APITestOrg.apps)
        let login = fake.handle(APITestOrg.passwordGrant()).json
        let token = try #require(login["access_token"]?.stringValue)
        let id = try #require(login["id"]?.stringValue)
        let path = String(id.drop(while: { $0 != "/" }).dropFirst(2).drop(while: { $0 != "/" }))  // strip scheme://host
        let me = fake.handle(APITestOrg.get(path, token: token))
        #expect(me.status == 200)
        #expect(me.json["username"] == "admin@api.test")
        #expect(me.json["user_id"] == .string(APITestOrg.userId))
        #expect(me.json["id"] == .string(id))
        #expect(fake.handle(APITestOrg.get(path, token: nil)).status == 403)
        #expect(
            fake.handle(APITestOrg.get("/id/00D000000000001AAA/005000000000002AAA", token: token)).bodyText == "Bad_Id")
    }
}
