import Foundation
import SalesforceFake
import Testing
import SalesforceHTTP

/// The six queries the Whaler client sends, over real HTTP from login to JSON, against the small
/// fixture: the records match the fixture's expectations and the engine's in-process answer byte for byte.
@Suite(.serialized) struct WhalerQueriesOverHTTPTests {
    @Test func sixWhalerQueriesEndToEnd() async throws {
        let org = try Live.loadSmallOrg()
        let sam = try #require(org.records(of: "User").first { $0["Name"]?.stringValue == "Sam Seller" }?.id)
        let acme = try #require(org.records(of: "Account").first { $0["Name"]?.stringValue == "Acme Corporation" }?.id)
        let queries = [
            """
            SELECT id, name, type, industry, annualRevenue, billingCity, billingState, phone, website, \
            numberOfEmployees, ownerId, description from Account WHERE (NOT type like 'Customer%') \
            AND (OwnerId = '\(sam)') AND (Industry = 'Technology' OR Industry = 'Finance') AND (BillingState = 'CA')
            """,
            "SELECT id, accountId, firstName, lastName, title, phone, email from Contact WHERE AccountId = '\(acme)'",
            "SELECT id, company, firstName, lastName, title, phone, email from Lead WHERE Company LIKE '%Acme%'",
            "Select Industry from Account group by Industry",
            "Select Owner.Id, Owner.Name from Account group by Owner.Id, Owner.Name",
            "Select BillingState from Account group by BillingState",
        ]
        let server = try await FakeSalesforceServer.start(org: org)
        let bodies = try await KeepAliveHTTPConnection.with(host: "127.0.0.1", port: server.httpPort) {
            connection -> [String] in
            let form =
                "grant_type=password&client_id=whalesim-client&client_secret=whalesim-secret&username=admin%40whaler.test&password=whaler123TOKEN123"
            let (status, login) = try await connection.request(
                .POST, "/services/oauth2/token",
                headers: [("Content-Type", "application/x-www-form-urlencoded")], body: Array(form.utf8))
            guard status == 200, let token = try JSONValue.parse(String(buffer: login))["access_token"]?.stringValue
            else {
                throw LiveTestError(message: "login failed: \(status) \(String(buffer: login))")
            }
            var bodies: [String] = []
            for soql in queries {
                // Spaces as '+', the way browsers and the Whaler client's HTTP library encode them.
                let q = QueryString.encode(soql).replacingOccurrences(of: "%20", with: "+")
                let (status, body) = try await connection.get(
                    "/services/data/v37.0/query?q=\(q)", headers: [("Authorization", "Bearer \(token)")])
                #expect(status == 200, "\(soql): \(String(buffer: body))")
                bodies.append(String(buffer: body))
            }
            return bodies
        }
        await server.stop()

        let pages = try bodies.map { try JSONValue.parse($0) }
        func strings(_ page: JSONValue, _ key: String) -> [String?] {
            page["records"]?.arrayValue?.map { $0[key]?.stringValue } ?? []
        }
        #expect(
            strings(pages[0], "Name") == [
                "Acme Corporation", "Globex Finance", "Stark Capital", "Acme Subsidiary West",
            ])
        #expect(
            pages[0]["records"]?[0]?.objectValue?.map(\.0) == [
                "attributes", "Id", "Name", "Type", "Industry", "AnnualRevenue", "BillingCity", "BillingState", "Phone",
                "Website", "NumberOfEmployees", "OwnerId", "Description",
            ])
        #expect(pages[1]["totalSize"] == 3)
        #expect(strings(pages[2], "Company") == ["Acme Corp", "ACME Widgets", "Super acme Ltd", "Acme"])
        #expect(
            strings(pages[3], "Industry") == [
                nil, "Education", "Energy", "Finance", "Healthcare", "Manufacturing", "Media", "Retail", "Technology",
            ])
        #expect(pages[3]["records"]?[0]?["attributes"] == .object([("type", "AggregateResult")]))
        #expect(strings(pages[4], "Name") == ["Ada Admin", "Sam Seller", "Rita Rep"])
        #expect(strings(pages[5], "BillingState") == [nil, "CA", "MA", "NY", "PA", "TX", "WA"])
        // The HTTP answer is exactly the engine's answer, paged as one page.
        for (soql, page) in zip(queries, pages) {
            let direct = try SOQL.execute(soql, in: org, apiVersion: "37.0", includeDeleted: false)
            #expect(
                page
                    == .object([
                        ("totalSize", .int(direct.totalSize)), ("done", true), ("records", .array(direct.records)),
                    ]), "\(soql)")
        }
    }
}
