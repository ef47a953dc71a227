import Testing
@testable import SalesforceFake

/// The six queries the Whaler client sends (SALESFORCE.md), exactly as it sends them.
@Suite struct SOQLWhalerQueryTests {
    typealias F = FixtureSupport

    @Test func filteredAccountsWithNotLikeOwnerIndustryAndState() throws {
        let soql = """
            SELECT id, name, type, industry, annualRevenue, billingCity, billingState, phone, website, \
            numberOfEmployees, ownerId, description from Account WHERE (NOT type like 'Customer%') \
            AND (OwnerId = '\(F.user(2))') AND (Industry = 'Technology' OR Industry = 'Finance') AND (BillingState = 'CA')
            """
        let result = try query(soql)
        // Acme (Prospect), Globex (no Type: NOT LIKE keeps nulls), Stark Capital (reseller), Acme Subsidiary West.
        // Initech is 'Customer - Direct', Umbrella is in NY, Hooli is Rita's, Wayne is Healthcare.
        #expect(result.strings("Id") == [F.account(1), F.account(2), F.account(6), F.account(20)])
        #expect(
            result.strings("Name") == ["Acme Corporation", "Globex Finance", "Stark Capital", "Acme Subsidiary West"])
        let first = result.records[0]
        #expect(
            first.objectValue!.map(\.0) == [
                "attributes", "Id", "Name", "Type", "Industry", "AnnualRevenue", "BillingCity", "BillingState", "Phone",
                "Website", "NumberOfEmployees", "OwnerId", "Description",
            ])
        #expect(
            first["attributes"]
                == .object([
                    ("type", "Account"), ("url", .string("/services/data/v59.0/sobjects/Account/\(F.account(1))")),
                ]))
        #expect(first["AnnualRevenue"] == .double(25_000_000))
        #expect(first["NumberOfEmployees"] == .int(1200))
        #expect(result.records[1]["Type"] == .null)
        #expect(result.totalSize == 4)
        #expect(!result.isAggregate)
    }

    @Test func contactsOfAnAccount() throws {
        let result = try query(
            "SELECT id, accountId, firstName, lastName, title, phone, email from Contact WHERE AccountId = '\(F.account(1))'"
        )
        #expect(result.strings("Id") == [F.contact(1), F.contact(2), F.contact(3)])
        #expect(result.records.allSatisfy { $0["AccountId"]?.stringValue == F.account(1) })
        #expect(
            result.records[0].objectValue!.map(\.0) == [
                "attributes", "Id", "AccountId", "FirstName", "LastName", "Title", "Phone", "Email",
            ])
    }

    @Test func contactsOfAnAccountByFifteenCharacterId() throws {
        let result = try query("SELECT Id from Contact WHERE AccountId = '\(F.account(1).prefix(15))'")
        #expect(result.totalSize == 3)
    }

    @Test func leadsLikeAcmeIgnoreCase() throws {
        let result = try query(
            "SELECT id, company, firstName, lastName, title, phone, email from Lead WHERE Company LIKE '%Acme%'")
        #expect(result.strings("Company") == ["Acme Corp", "ACME Widgets", "Super acme Ltd", "Acme"])
        #expect(result.strings("Id") == [F.lead(1), F.lead(2), F.lead(3), F.lead(6)])
    }

    @Test func industriesGroupedSortedWithNullFirst() throws {
        let result = try query("Select Industry from Account group by Industry")
        #expect(result.isAggregate)
        #expect(
            result.strings("Industry") == [
                nil, "Education", "Energy", "Finance", "Healthcare", "Manufacturing", "Media", "Retail", "Technology",
            ])
        #expect(
            result.records[0] == .object([("attributes", .object([("type", "AggregateResult")])), ("Industry", .null)]))
        #expect(result.totalSize == 9)
    }

    @Test func ownersGroupedByParentPath() throws {
        let result = try query("Select Owner.Id, Owner.Name from Account group by Owner.Id, Owner.Name")
        #expect(result.strings("Id") == [F.user(1), F.user(2), F.user(3)])
        #expect(result.strings("Name") == ["Ada Admin", "Sam Seller", "Rita Rep"])
        #expect(result.records[0].objectValue!.map(\.0) == ["attributes", "Id", "Name"])
    }

    @Test func billingStatesGrouped() throws {
        let result = try query("Select BillingState from Account group by BillingState")
        #expect(result.strings("BillingState") == [nil, "CA", "MA", "NY", "PA", "TX", "WA"])
    }
}
