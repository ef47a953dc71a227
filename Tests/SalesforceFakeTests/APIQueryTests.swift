import Foundation
import SalesforceFake
import Testing

/// Query and queryAll: results, paging with locators, batch sizes, errors, routing traps.
@Suite struct APIQueryTests {
    /// The test org plus `extra` accounts named `Bulk 1000`, `Bulk 1001`, ...
    func fakeWithBulk(_ extra: Int, config: FakeSalesforceConfig = FakeSalesforceConfig()) throws -> (
        FakeSalesforce, String
    ) {
        let (fake, token) = try APITestOrg.fakeWithSession(config: config)
        for i in 0..<extra { try fake.org.insert(type: "Account", fields: [("Name", .string("Bulk \(1000 + i)"))]) }
        return (fake, token)
    }

    @Test func simpleQueryShape() throws {
        let (fake, token) = try APITestOrg.fakeWithSession()
        let response = fake.handle(
            APITestOrg.get(
                APITestOrg.queryTarget("select name, industry from account where billingstate = 'ca' order by name"),
                token: token))
        #expect(response.status == 200)
        let json = response.json
        #expect(json.objectValue?.map(\.0) == ["totalSize", "done", "records"])
        #expect(json["totalSize"] == 2 && json["done"] == true)
        let first = try #require(json["records"]?[0])
        #expect(first.objectValue?.map(\.0) == ["attributes", "Name", "Industry"])
        #expect(first["Name"] == "Acme" && first["attributes"]?["type"] == "Account")
        #expect(fake.requestLog.entries.last?.rows == 2)
        #expect(
            fake.requestLog.entries.last?.soql
                == "select name, industry from account where billingstate = 'ca' order by name")
    }

    @Test func routingTrapsOnQuery() throws {
        let (fake, token) = try APITestOrg.fakeWithSession()
        let targets = [
            "/services/data/v59.0/query/?q=SELECT+Id+FROM+Account",
            "/services/data/v59.0/query?q=SELECT%20Id%20FROM%20Account",
            "/services/data/v59.0/query?q=SELECT+Id+FROM+Account&q=ignored",
            "/services/data/v37.0/query?q=SELECT+Id+FROM+Account",
        ]
        for target in targets {
            let response = fake.handle(APITestOrg.get(target, token: token))
            #expect(response.status == 200, "\(target): \(response.bodyText)")
            #expect(response.json["totalSize"] == 3, "\(target)")
        }
        // The version of the request shows in attributes.url.
        let v37 = fake.handle(APITestOrg.get(targets[3], token: token)).json
        #expect(
            v37["records"]?[0]?["attributes"]?["url"]?.stringValue?.hasPrefix("/services/data/v37.0/sobjects/Account/")
                == true)
    }

    @Test func queryErrors() throws {
        let (fake, token) = try APITestOrg.fakeWithSession()
        let cases: [(String, Int, String)] = [
            ("/services/data/v59.0/query", 400, "MALFORMED_QUERY"),
            ("/services/data/v59.0/query?q=", 400, "MALFORMED_QUERY"),
            (APITestOrg.queryTarget("SELECT Id FORM Account"), 400, "MALFORMED_QUERY"),
            (APITestOrg.queryTarget("SELECT Foo FROM Account"), 400, "INVALID_FIELD"),
            (APITestOrg.queryTarget("SELECT Id FROM Whale"), 400, "INVALID_TYPE"),
        ]
        for (target, status, code) in cases {
            let response = fake.handle(APITestOrg.get(target, token: token))
            #expect(response.status == status, "\(target)")
            #expect(response.errorCode == code, "\(target): \(response.bodyText)")
            #expect(response.json[0]?.objectValue?.map(\.0) == ["message", "errorCode"])
        }
        let badColumn = fake.handle(APITestOrg.get(APITestOrg.queryTarget("SELECT Foo FROM Account"), token: token))
        #expect(
            badColumn.json[0]?["message"]?.stringValue?.contains("No such column 'Foo' on entity 'Account'") == true)
        #expect(fake.handle(APITestOrg.get(APITestOrg.queryTarget("SELECT Id FROM Account"), token: nil)).status == 401)
    }

    @Test func pagingAcrossPagesWithBatchSize() throws {
        let (fake, token) = try fakeWithBulk(450)
        let header = [(name: "Sforce-Query-Options", value: "batchSize=200")]
        var response = fake.handle(
            APITestOrg.get(
                APITestOrg.queryTarget("SELECT Name FROM Account WHERE Name LIKE 'Bulk%' ORDER BY Name"), token: token,
                headers: header))
        var names: [String] = []
        var pages = 0
        var locators: [String] = []
        while true {
            #expect(response.status == 200, "\(response.bodyText.prefix(300))")
            pages += 1
            let json = response.json
            #expect(json["totalSize"] == 450)
            names += json["records"]?.arrayValue?.compactMap { $0["Name"]?.stringValue } ?? []
            guard json["done"] == false, let next = json["nextRecordsUrl"]?.stringValue else {
                #expect(json["nextRecordsUrl"] == nil)  // absent, not null, on the last page
                break
            }
            locators.append(next)
            response = fake.handle(APITestOrg.get(next, token: token))
        }
        #expect(pages == 3)
        #expect(names.count == 450 && names == names.sorted() && Set(names).count == 450)
        #expect(locators.count == 2)
        let locator = try #require(locators.first)
        #expect(locator.wholeMatch(of: /\/services\/data\/v59\.0\/query\/01g[0-9A-Z]{15}-200/) != nil, "\(locator)")
        #expect(locators[1].hasSuffix("-400"))
        // A locator can be fetched again (with a trailing slash too).
        #expect(fake.handle(APITestOrg.get(locator + "/", token: token)).json["records"]?.arrayValue?.count == 200)
    }

    @Test func locatorsAreDeterministic() throws {
        func firstLocator() throws -> String? {
            let (fake, token) = try fakeWithBulk(250)
            let response = fake.handle(
                APITestOrg.get(
                    APITestOrg.queryTarget("SELECT Id FROM Account"), token: token,
                    headers: [("Sforce-Query-Options", "batchSize=200")]))
            return response.json["nextRecordsUrl"]?.stringValue
        }
        #expect(try firstLocator() == "/services/data/v59.0/query/01g000000000000001-200")
        #expect(try firstLocator() == firstLocator())
    }

    @Test func batchSizeBounds() throws {
        let (fake, token) = try fakeWithBulk(2_600)
        func firstPage(_ header: String?) -> Int {
            let headers = header.map { [(name: "Sforce-Query-Options", value: $0)] } ?? []
            return fake.handle(
                APITestOrg.get(APITestOrg.queryTarget("SELECT Id FROM Account"), token: token, headers: headers)
            )
            .json["records"]?.arrayValue?.count ?? -1
        }
        #expect(firstPage(nil) == 2000)  // default page
        #expect(firstPage("batchSize=200") == 200)
        #expect(firstPage("batchSize=500") == 500)
        #expect(firstPage("batchSize=2000") == 2000)
        #expect(firstPage("batchSize=50") == 200)  // below the minimum: 200
        #expect(firstPage("batchSize=5000") == 2000)  // above the maximum: 2000
        #expect(firstPage("batchSize=abc") == 2000)  // unparsable: the default
        #expect(firstPage("other=1, batchSize=300") == 300)
    }

    @Test func invalidLocators() throws {
        let (fake, token) = try fakeWithBulk(250, config: FakeSalesforceConfig(queryCursorCapacity: 1))
        let header = [(name: "Sforce-Query-Options", value: "batchSize=200")]
        let first = fake.handle(
            APITestOrg.get(APITestOrg.queryTarget("SELECT Id FROM Account"), token: token, headers: header)
        ).json
        let next = try #require(first["nextRecordsUrl"]?.stringValue)
        for bad in [
            "/services/data/v59.0/query/01gNOPE-200", "/services/data/v59.0/query/nonsense",
            next.replacingOccurrences(of: "-200", with: "-9999"),
        ] {
            let response = fake.handle(APITestOrg.get(bad, token: token))
            #expect(response.status == 400 && response.errorCode == "INVALID_QUERY_LOCATOR", "\(bad)")
        }
        // A second multi-page query evicts the first cursor (capacity 1).
        _ = fake.handle(
            APITestOrg.get(APITestOrg.queryTarget("SELECT Name FROM Account"), token: token, headers: header))
        #expect(fake.handle(APITestOrg.get(next, token: token)).errorCode == "INVALID_QUERY_LOCATOR")
    }

    @Test func queryAllSeesDeletedRows() throws {
        let (fake, token) = try APITestOrg.fakeWithSession()
        let id = try fake.org.insert(type: "Account", fields: [("Name", "Ghost")])
        try fake.org.delete(type: "Account", id: id)
        let soql = "SELECT Id, IsDeleted FROM Account WHERE Name = 'Ghost'"
        #expect(fake.handle(APITestOrg.get(APITestOrg.queryTarget(soql), token: token)).json["totalSize"] == 0)
        let all = fake.handle(APITestOrg.get(APITestOrg.queryTarget(soql, all: true), token: token)).json
        #expect(all["totalSize"] == 1)
        #expect(all["records"]?[0]?["IsDeleted"] == true)
    }

    @Test func countQuery() throws {
        let (fake, token) = try APITestOrg.fakeWithSession()
        let json = fake.handle(APITestOrg.get(APITestOrg.queryTarget("SELECT COUNT() FROM Contact"), token: token)).json
        #expect(json == .object([("totalSize", 2), ("done", true), ("records", [])]))
    }

    @Test func resultCacheHitsUntilAWrite() throws {
        let (fake, token) = try APITestOrg.fakeWithSession()
        let target = APITestOrg.queryTarget("SELECT Name FROM Account ORDER BY Name")
        let first = fake.handle(APITestOrg.get(target, token: token)).bodyText
        #expect(fake.handle(APITestOrg.get(target, token: token)).bodyText == first)
        #expect(fake.queryCacheStatistics.hits == 1)
        // A write through the API, then one straight on the org: both change the answer.
        _ = fake.handle(
            APITestOrg.send("POST", "/services/data/v59.0/sobjects/Account", token: token, json: #"{"Name": "Zed"}"#))
        #expect(fake.handle(APITestOrg.get(target, token: token)).json["totalSize"] == 4)
        try fake.org.insert(type: "Account", fields: [("Name", "Zed 2")])
        #expect(fake.handle(APITestOrg.get(target, token: token)).json["totalSize"] == 5)
        // The same text on another version or through queryAll is another entry.
        #expect(
            fake.handle(APITestOrg.get(target.replacingOccurrences(of: "v59.0", with: "v58.0"), token: token)).json[
                "records"]?[0]?["attributes"]?["url"]?.stringValue?.contains("v58.0") == true)
    }

    @Test func resultCacheOffStillAnswers() throws {
        let (fake, token) = try APITestOrg.fakeWithSession(config: FakeSalesforceConfig(queryResultCacheCapacity: 0))
        let target = APITestOrg.queryTarget("SELECT Id FROM Account")
        #expect(fake.handle(APITestOrg.get(target, token: token)).json["totalSize"] == 3)
        #expect(fake.handle(APITestOrg.get(target, token: token)).json["totalSize"] == 3)
        #expect(fake.queryCacheStatistics.hits == 0)
    }
}
