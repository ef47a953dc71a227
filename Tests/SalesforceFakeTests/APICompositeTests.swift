import Foundation
@testable import SalesforceFake
import Testing

/// `POST /composite`: ordered subrequests, `@{ref.path}` substitution, allOrNone rollback.
@Suite struct APICompositeTests {
    let url = "/services/data/v59.0/composite"

    @Test func referencesFlowBetweenSubrequests() throws {
        let (fake, token) = try APITestOrg.fakeWithSession()
        let body = """
            {"allOrNone": false, "compositeRequest": [
              {"method": "POST", "url": "/services/data/v59.0/sobjects/Account", "referenceId": "newAccount", "body": {"Name": "Composite Co"}},
              {"method": "POST", "url": "/services/data/v59.0/sobjects/Contact", "referenceId": "newContact",
               "body": {"LastName": "Ref", "AccountId": "@{newAccount.id}"}},
              {"method": "GET", "url": "/services/data/v59.0/sobjects/Contact/@{newContact.id}?fields=AccountId", "referenceId": "readBack"}
            ]}
            """
        let response = fake.handle(APITestOrg.send("POST", url, token: token, json: body))
        #expect(response.status == 200)
        let items = try #require(response.json["compositeResponse"]?.arrayValue)
        #expect(items.map { $0["httpStatusCode"] } == [201, 201, 200])
        #expect(items.map { $0["referenceId"] } == ["newAccount", "newContact", "readBack"])
        let accountId = try #require(items[0]["body"]?["id"]?.stringValue)
        #expect(items[2]["body"]?["AccountId"] == .string(accountId))
        #expect(items[0]["httpHeaders"]?["Location"] == .string("/services/data/v59.0/sobjects/Account/\(accountId)"))
    }

    @Test func allOrNoneRollsBack() throws {
        let (fake, token) = try APITestOrg.fakeWithSession()
        let before = fake.org.count(of: "Account")
        let body = """
            {"allOrNone": true, "compositeRequest": [
              {"method": "POST", "url": "/services/data/v59.0/sobjects/Account", "referenceId": "a", "body": {"Name": "Doomed"}},
              {"method": "POST", "url": "/services/data/v59.0/sobjects/Account", "referenceId": "b", "body": {"Nope": 1}},
              {"method": "GET", "url": "/services/data/v59.0/limits", "referenceId": "c"}
            ]}
            """
        let items = try #require(
            fake.handle(APITestOrg.send("POST", url, token: token, json: body)).json["compositeResponse"]?.arrayValue)
        #expect(items.map { $0["httpStatusCode"] } == [400, 400, 400])
        #expect(items[0]["body"]?[0]?["errorCode"] == "PROCESSING_HALTED")
        #expect(items[1]["body"]?[0]?["errorCode"] == "INVALID_FIELD")
        #expect(items[2]["body"]?[0]?["errorCode"] == "PROCESSING_HALTED")
        #expect(fake.org.count(of: "Account") == before)
    }

    @Test func withoutAllOrNoneLaterRequestsRunAndBadReferencesFail() throws {
        let (fake, token) = try APITestOrg.fakeWithSession()
        let body = """
            {"compositeRequest": [
              {"method": "POST", "url": "/services/data/v59.0/sobjects/Account", "referenceId": "bad", "body": {"Nope": 1}},
              {"method": "GET", "url": "/services/data/v59.0/sobjects/Account/@{bad.id}", "referenceId": "dependent"},
              {"method": "POST", "url": "/services/data/v59.0/sobjects/Account", "referenceId": "fine", "body": {"Name": "Kept"}}
            ]}
            """
        let items = try #require(
            fake.handle(APITestOrg.send("POST", url, token: token, json: body)).json["compositeResponse"]?.arrayValue)
        #expect(items.map { $0["httpStatusCode"] } == [400, 400, 201])
        #expect(items[1]["body"]?[0]?["errorCode"] == "PROCESSING_HALTED")
        #expect(items[1]["body"]?[0]?["message"]?.stringValue?.contains("bad.id") == true)
    }

    @Test func malformedCompositeBodies() throws {
        let (fake, token) = try APITestOrg.fakeWithSession()
        let sub = #"{"method": "GET", "url": "/services/data/v59.0/limits", "referenceId": "r"}"#
        let cases: [(String, String)] = [
            ("not json", "JSON_PARSER_ERROR"),
            (#"{"allOrNone": true}"#, "INVALID_INPUT"),
            (#"{"compositeRequest": []}"#, "INVALID_INPUT"),
            (
                "{\"compositeRequest\": [" + Array(repeating: sub, count: 26).joined(separator: ",") + "]}",
                "INVALID_INPUT"
            ),
            (#"{"compositeRequest": [{"method": "GET", "url": "/services/data/v59.0/limits"}]}"#, "INVALID_INPUT"),
            (
                #"{"compositeRequest": [{"method": "GET", "url": "http://evil/x", "referenceId": "r"}]}"#,
                "INVALID_INPUT"
            ),
            ("{\"compositeRequest\": [\(sub), \(sub)]}", "INVALID_INPUT"),
        ]
        for (body, code) in cases {
            let response = fake.handle(APITestOrg.send("POST", url, token: token, json: body))
            #expect(response.status == 400, "\(body.prefix(60))")
            #expect(response.errorCode == code, "\(body.prefix(60))")
        }
    }

    @Test func referencePaths() throws {
        let responses: [String: JSONValue] = [
            "q": .object([("records", [.object([("Id", "001X")])]), ("totalSize", 1)])
        ]
        #expect(try FakeSalesforce.resolve("q.records[0].Id", responses) == "001X")
        #expect(try FakeSalesforce.resolve("q.totalSize", responses) == 1)
        #expect(throws: (any Error).self) { try FakeSalesforce.resolve("q.records[3].Id", responses) }
        #expect(throws: (any Error).self) { try FakeSalesforce.resolve("nope.id", responses) }
    }
}
