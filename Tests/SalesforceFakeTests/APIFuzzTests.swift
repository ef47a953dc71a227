import Foundation
import Testing
@testable import SalesforceFake
import WhalesimTesting

/// Random and mutated requests to every route of `FakeSalesforce.handle` (SOAP XML, form-encoded
/// OAuth, JSON bodies, composite, query strings, headers, methods): each gets a result or a
/// Salesforce-shaped error (REST: `[{"message","errorCode"}]`; OAuth: `{"error","error_description"}`;
/// SOAP: a `soapenv:Fault`), never a trap, and a refused request leaves the org's records unchanged.
/// Replay: the failure message names the seed and case; `caseRequest(seed:index:)` rebuilds it.
@Suite struct APIFuzzTests {
    static let seed: UInt64 = 8_2026
    static let count = 20_000

    static func templates(token: String, account: String) -> [SFRequest] {
        let v = "/services/data/v59.0"
        return [
            SFRequest(
                method: "POST", target: "/services/Soap/u/59.0",
                headers: [("Content-Type", "text/xml"), ("SOAPAction", "login")],
                body:
                    "<?xml version=\"1.0\" encoding=\"utf-8\"?><env:Envelope xmlns:env=\"http://schemas.xmlsoap.org/soap/envelope/\"><env:Body><n1:login xmlns:n1=\"urn:partner.soap.sforce.com\"><n1:username>\(APITestOrg.username)</n1:username><n1:password>\(APITestOrg.password + APITestOrg.securityToken)</n1:password></n1:login></env:Body></env:Envelope>"
            ),
            APITestOrg.passwordGrant(),
            APITestOrg.form(
                "/services/oauth2/token",
                [("grant_type", "refresh_token"), ("client_id", APITestOrg.appId), ("refresh_token", "x")]),
            APITestOrg.form("/services/oauth2/revoke", [("token", token)]),
            APITestOrg.get(
                "/services/oauth2/authorize?response_type=token&client_id=\(APITestOrg.appId)&redirect_uri=\(QueryString.encode(APITestOrg.redirect))&state=s",
                token: nil),
            APITestOrg.get("/services/data/", token: nil),
            APITestOrg.get(
                APITestOrg.queryTarget(
                    "SELECT Id, Name, Owner.Name FROM Account WHERE Industry IN ('Technology', 'Finance') ORDER BY Name"
                ), token: token),
            APITestOrg.get(
                APITestOrg.queryTarget("SELECT Id FROM Contact", all: true), token: token,
                headers: [("Sforce-Query-Options", "batchSize=200")]),
            APITestOrg.get("\(v)/query/01g000000000001AAA-2000", token: token),
            APITestOrg.get("\(v)/sobjects", token: token),
            APITestOrg.get("\(v)/sobjects/Account/describe", token: token),
            APITestOrg.get("\(v)/sobjects/Account/\(account)", token: token),
            APITestOrg.get("\(v)/limits", token: token),
            APITestOrg.send(
                "POST", "\(v)/sobjects/Account", token: token,
                json: #"{"Name":"Fuzz","Industry":"Retail","AnnualRevenue":12.5}"#),
            APITestOrg.send("PATCH", "\(v)/sobjects/Account/\(account)", token: token, json: #"{"BillingState":"WA"}"#),
            SFRequest(
                method: "DELETE", target: "\(v)/sobjects/Contact/003000000000001AAA",
                headers: [("Authorization", "Bearer \(token)")]),
            APITestOrg.send(
                "POST", "\(v)/composite", token: token,
                json:
                    #"{"allOrNone":true,"compositeRequest":[{"method":"POST","url":"/services/data/v59.0/sobjects/Account","referenceId":"a","body":{"Name":"C1"}},{"method":"GET","url":"/services/data/v59.0/sobjects/Account/@{a.id}","referenceId":"b"}]}"#
            ),
        ]
    }

    static let junk: [[UInt8]] = [
        Array("{".utf8), Array("}".utf8), Array("[[[[[[[[[[".utf8), Array("\"".utf8), Array("\\u".utf8),
        Array("\\ud800".utf8),
        [0xFF], [0xC3, 0x28], [0xED, 0xA0, 0x80], [0], Array("%".utf8), Array("%ZZ".utf8), Array("%C3%28".utf8),
        Array("&".utf8),
        Array("=".utf8), Array("<".utf8), Array("</n1:username>".utf8), Array("]]>".utf8), Array("&amp;".utf8),
        Array("@{b.".utf8),
        Array("1e999999".utf8), Array("-".utf8), Array("null".utf8), Array("9223372036854775808".utf8), Array("/".utf8),
        Array("..".utf8),
    ]

    /// Case `index`: a template with its body, target, method and headers mutated.
    static func caseRequest(_ base: SFRequest, seed: UInt64, index: Int) -> SFRequest {
        var rng = SplitMix64(seed: seed ^ (UInt64(index) &* 0x9E37_79B9_7F4A_7C15))
        var request = base
        for _ in 0..<(1 + rng.below(3)) {
            switch rng.below(10) {
            case 0, 1, 2: request.body = mutate(request.body, &rng)
            case 3: request.query = String(decoding: mutate(Array(request.query.utf8), &rng), as: UTF8.self)
            case 4: request.path = String(decoding: mutate(Array(request.path.utf8), &rng), as: UTF8.self)
            case 5: request.method = rng.pick(["GET", "POST", "PATCH", "DELETE", "PUT", "HEAD", "get", ""])
            case 6: if !request.headers.isEmpty { request.headers.remove(at: rng.below(request.headers.count)) }
            case 7:
                request.headers.append(
                    (
                        rng.pick(["Authorization", "Content-Type", "Sforce-Query-Options"]),
                        rng.pick([
                            "Bearer forged", "OAuth ", "text/plain", "batchSize=1", "batchSize=99999999999999999999",
                            "Bearer \u{1F40B}",
                        ])
                    ))
            case 8:
                request.body = Array(
                    repeating: rng.pick([UInt8(ascii: "["), UInt8(ascii: "{"), UInt8(ascii: "a")]),
                    count: rng.pick([1_000, 100_000]))
            default: request.body = (0..<rng.below(64)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            }
        }
        return request
    }

    static func mutate(_ bytes: [UInt8], _ rng: inout SplitMix64) -> [UInt8] {
        var b = bytes
        let at = b.isEmpty ? 0 : rng.below(b.count + 1)
        switch rng.below(5) {
        case 0: if !b.isEmpty { b.removeSubrange(at..<min(b.count, at + 1 + rng.below(8))) }
        case 1: b.insert(contentsOf: rng.pick(junk), at: at)
        case 2: if at < b.count { b[at] ^= UInt8(truncatingIfNeeded: 1 << rng.below(8)) }
        case 3: b = Array(b.prefix(at))
        default: b.insert(contentsOf: b[at...].prefix(16), at: at)
        }
        return b
    }

    func records(_ org: Org) -> [[[JSONValue]]] { org.snapshot().tables.map { $0.rows.map(\.values) } }

    @Test func mutatedRequestsGetAResultOrASalesforceError() throws {
        let (fake, token) = try APITestOrg.fakeWithSession()
        let account = try #require(
            try query("SELECT Id FROM Account WHERE Name = 'Acme'", org: fake.org).records.first?["Id"]?.stringValue)
        let templates = Self.templates(token: token, account: account)
        var statuses: [Int: Int] = [:]
        var failures = 0
        for index in 0..<Self.count where failures < 10 {
            let request = Self.caseRequest(templates[index % templates.count], seed: Self.seed, index: index)
            let before = records(fake.org)
            let response = fake.handle(request)
            statuses[response.status, default: 0] += 1
            let problem = Self.problem(response)
            let unchanged = response.status < 400 || records(fake.org) == before
            if problem != nil || !unchanged {
                failures += 1
                Issue.record(
                    "seed \(Self.seed) case \(index) (template \(index % templates.count)): \(problem ?? "a refused request changed the org") — \(request.method) \(request.path)?\(request.query.prefix(200)) body \(String(decoding: request.body.prefix(300), as: UTF8.self))"
                )
            }
        }
        #expect(statuses.keys.contains(200) && statuses.keys.contains(400) && statuses.keys.contains(401))
        print("API fuzz: \(Self.count) requests, statuses \(statuses.sorted { $0.key < $1.key })")
    }

    /// Generated queries through the API: every answer is a result or a 400, and the result cache
    /// and request log stay within their capacities however many distinct texts arrive.
    @Test func fuzzedQueriesKeepTheAPICachesBounded() throws {
        var config = FakeSalesforceConfig()
        config.queryResultCacheCapacity = 16
        let (fake, token) = try APITestOrg.fakeWithSession(config: config)
        let fuzzer = SOQLFuzzer(org: fake.org, seed: Self.seed)
        var answered = 0
        for index in 0..<2_000 {
            let response = fake.handle(APITestOrg.get(APITestOrg.queryTarget(fuzzer.query(index)), token: token))
            #expect(
                response.status == 200 || response.status == 400,
                "seed \(Self.seed) case \(index): \(response.status) \(response.bodyText.prefix(200))")
            if response.status == 200 { answered += 1 } else { #expect(Self.problem(response) == nil) }
        }
        #expect(answered > 100)
        #expect(fake.state.withLock { $0.results.count } <= 16)
        #expect(fake.requestLog.entries.count <= config.requestLogCapacity)
    }

    /// The query of issue 8, as a new user sent it: a 400 MALFORMED_QUERY, and the fake keeps serving.
    @Test func nestedSemiJoinOverTheAPIIsAMalformedQuery() throws {
        let (fake, token) = try APITestOrg.fakeWithSession()
        let soql =
            "SELECT Id FROM Account WHERE Id IN (SELECT AccountId FROM Contact WHERE AccountId IN (SELECT Id FROM Account))"
        let response = fake.handle(APITestOrg.get(APITestOrg.queryTarget(soql), token: token))
        #expect(response.status == 400)
        #expect(response.errorCode == "MALFORMED_QUERY")
        #expect(
            response.json[0]?["message"]?.stringValue?.hasSuffix("Nesting of semi join sub-selects is not supported")
                == true)
        #expect(
            fake.handle(APITestOrg.get(APITestOrg.queryTarget("SELECT Id FROM Account"), token: token)).status == 200)
    }

    /// What is wrong with a response, or nil when it is a result or a Salesforce-shaped error.
    static func problem(_ response: SFResponse) -> String? {
        guard [200, 201, 204, 300, 302, 400, 401, 403, 404, 405, 415, 500, 503].contains(response.status) else {
            return "unexpected status \(response.status)"
        }
        guard response.status >= 400 else { return nil }
        let text = response.bodyText
        if text.contains("Fault>") { return nil }
        guard let json = try? JSONValue.parse(response.body) else {
            return "error body is not JSON: \(text.prefix(200))"
        }
        if let code = json[0]?["errorCode"]?.stringValue, !code.isEmpty, json[0]?["message"]?.stringValue != nil {
            return nil
        }
        if json["error"]?.stringValue != nil, json["error_description"]?.stringValue != nil { return nil }
        return "error body is not Salesforce-shaped: \(text.prefix(200))"
    }
}
