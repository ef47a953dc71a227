import Foundation
import SalesforceFake
import Testing

/// Sessions, versions, routing traps, methods and the error shape.
@Suite struct APISessionAndRoutingTests {
    @Test func missingUnknownOrExpiredTokenIs401() throws {
        let (fake, token) = try APITestOrg.fakeWithSession()
        let limits = "/services/data/v59.0/limits"
        for response in [
            fake.handle(APITestOrg.get(limits, token: nil)),
            fake.handle(APITestOrg.get(limits, token: "00Dbogus!AQxyz")),
            fake.handle(SFRequest(method: "GET", target: limits, headers: [("Authorization", "Basic abc")])),
        ] {
            #expect(response.status == 401)
            #expect(
                response.json
                    == .array([
                        .object([("message", "Session expired or invalid"), ("errorCode", "INVALID_SESSION_ID")])
                    ]))
        }
        // `OAuth <token>` works like `Bearer <token>`, header names in any case.
        #expect(
            fake.handle(SFRequest(method: "GET", target: limits, headers: [("authorization", "OAuth \(token)")])).status
                == 200)
        #expect(fake.expireSession(token: token))
        #expect(!fake.expireSession(token: token))
        #expect(fake.handle(APITestOrg.get(limits, token: token)).errorCode == "INVALID_SESSION_ID")
    }

    @Test func expireAllSessions() throws {
        let (fake, token) = try APITestOrg.fakeWithSession()
        _ = fake.handle(APITestOrg.passwordGrant())
        #expect(fake.sessions.count == 2)
        #expect(fake.expireAllSessions() == 2)
        #expect(fake.handle(APITestOrg.get("/services/data/v59.0/limits", token: token)).status == 401)
    }

    @Test func versionsNeedNoAuth() throws {
        let fake = FakeSalesforce(org: try APITestOrg.make())
        for path in ["/services/data/", "/services/data"] {
            let response = fake.handle(SFRequest(method: "GET", target: path))
            #expect(response.status == 200)
            let list = try #require(response.json.arrayValue)
            #expect(list.count == 23)  // 37.0 ... 59.0
            #expect(
                list.first == .object([("label", "Summer '16"), ("url", "/services/data/v37.0"), ("version", "37.0")]))
            #expect(
                list.last == .object([("label", "Winter '24"), ("url", "/services/data/v59.0"), ("version", "59.0")]))
        }
    }

    @Test func unsupportedVersionsAreNotFound() throws {
        let (fake, token) = try APITestOrg.fakeWithSession()
        #expect(fake.handle(APITestOrg.get("/services/data/v37.0/limits", token: token)).status == 200)
        for version in ["v36.0", "v60.0", "v5", "59.0", "vv59.0"] {
            let response = fake.handle(APITestOrg.get("/services/data/\(version)/limits", token: token))
            #expect(response.status == 404, "version \(version)")
            #expect(response.errorCode == "NOT_FOUND")
        }
    }

    @Test func unknownPathsAreNotFoundAndWrongMethodsAre405() throws {
        let (fake, token) = try APITestOrg.fakeWithSession()
        for path in ["/", "/services", "/services/data/v59.0/nothing", "/services/oauth2/nothing", "/other/x"] {
            #expect(fake.handle(APITestOrg.get(path, token: token)).status == 404, "\(path)")
        }
        let put = fake.handle(
            APITestOrg.send("PUT", "/services/data/v59.0/sobjects/Account/001000000000001AAA", token: token, json: "{}")
        )
        #expect(put.status == 405 && put.errorCode == "METHOD_NOT_ALLOWED")
        #expect(
            fake.handle(APITestOrg.send("POST", "/services/data/v59.0/limits", token: token, json: "{}")).status == 405)
        #expect(fake.handle(SFRequest(method: "GET", target: "/services/oauth2/token")).status == 405)
    }

    @Test func resourcesDirectory() throws {
        let (fake, token) = try APITestOrg.fakeWithSession()
        let response = fake.handle(APITestOrg.get("/services/data/v59.0/", token: token))
        #expect(response.json["query"] == "/services/data/v59.0/query")
        #expect(response.json["sobjects"] == "/services/data/v59.0/sobjects")
    }

    @Test func limitsCountRequests() throws {
        let (fake, token) = try APITestOrg.fakeWithSession(config: FakeSalesforceConfig(dailyApiRequestsMax: 100))
        let first = fake.handle(APITestOrg.get("/services/data/v59.0/limits", token: token))
        #expect(first.json["DailyApiRequests"] == .object([("Max", 100), ("Remaining", 98)]))
        #expect(first.header("Sforce-Limit-Info") == "api-usage=2/100")
        // Keys sorted like Salesforce's.
        let keys = first.json.objectValue?.map(\.0) ?? []
        #expect(keys == keys.sorted())
    }

    @Test func queryStringDecoding() {
        #expect(QueryString.decode("SELECT+Id+FROM+Account") == "SELECT Id FROM Account")
        #expect(QueryString.decode("a%2Bb%20c") == "a+b c")
        #expect(QueryString.decode("100%") == "100%")  // a bad escape stays literal
        #expect(QueryString.decode("%zz%4") == "%zz%4")
        #expect(QueryString.decode("%C3%A9t%C3%A9") == "été")
        #expect(QueryString.decodePath("a+b%2Fc") == "a+b/c")
        #expect(QueryString.parameters("q=1&q=2&x&y=") == ["q": "1", "x": "", "y": ""])
        #expect(QueryString.encode("a b&c/é") == "a%20b%26c%2F%C3%A9")
    }

    @Test func requestTargetSplitting() {
        let request = SFRequest(method: "get", target: "/services/data/v59.0/query/?q=SELECT+Id")
        #expect(request.method == "GET")
        #expect(request.path == "/services/data/v59.0/query/")
        #expect(request.queryParameters["q"] == "SELECT Id")
    }

    @Test func requestLogIsOrderedAndBounded() throws {
        let (fake, token) = try APITestOrg.fakeWithSession(config: FakeSalesforceConfig(requestLogCapacity: 3))
        for _ in 0..<4 { _ = fake.handle(APITestOrg.get("/services/data/v59.0/limits", token: token)) }
        _ = fake.handle(APITestOrg.get("/services/data/v59.0/nothing", token: nil))
        let log = fake.requestLog
        #expect(log.dropped == 3)  // the login, then the first two /limits
        #expect(log.entries.map(\.sequence) == [4, 5, 6])
        #expect(log.entries.map(\.status) == [200, 200, 404])
        #expect(log.entries[0].client == APITestOrg.username)
        #expect(log.entries[0].endpoint == .limits)
        #expect(log.entries[2].client == "anonymous")
        #expect(log.entries[0].line.hasPrefix("#4 admin@api.test GET /services/data/v59.0/limits 200"))
    }
}
