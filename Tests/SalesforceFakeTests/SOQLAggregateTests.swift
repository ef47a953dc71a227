import Testing
@testable import SalesforceFake

@Suite struct SOQLAggregateTests {
    static let aggregateAttributes: JSONValue = .object([("type", "AggregateResult")])

    @Test func countPutsTheCountInTotalSize() throws {
        let all = try query("SELECT COUNT() FROM Account")
        #expect(all.totalSize == 20)
        #expect(all.records.isEmpty)
        #expect(try query("select count() from Account where BillingState = 'CA'").totalSize == 10)
        #expect(try query("SELECT COUNT() FROM Account LIMIT 3").totalSize == 3)
    }

    @Test func unaliasedAggregatesAreExprN() throws {
        let r = try query("SELECT COUNT(Type), COUNT_DISTINCT(Type), COUNT(Id) total FROM Account")
        #expect(
            r.records == [
                .object([
                    ("attributes", Self.aggregateAttributes), ("expr0", 18), ("expr1", 7), ("total", 20),
                ])
            ])
        #expect(r.totalSize == 1)
        #expect(r.isAggregate)
    }

    @Test func sumAvgMinMax() throws {
        let r = try query(
            "SELECT SUM(NumberOfEmployees), AVG(AnnualRevenue), MIN(AnnualRevenue), MAX(NumberOfEmployees), MIN(Name) FROM Account WHERE BillingState = 'TX'"
        )
        #expect(
            r.records[0]
                == .object([
                    ("attributes", Self.aggregateAttributes), ("expr0", .int(3195)), ("expr1", .double(77_150_000)),
                    ("expr2", .double(4_300_000)), ("expr3", .int(3100)), ("expr4", "Soylent Foods"),
                ]))
    }

    @Test func aggregateOverNoRowsIsOneRow() throws {
        let r = try query("SELECT COUNT(Id), SUM(AnnualRevenue) FROM Account WHERE Name = 'nobody'")
        #expect(r.records == [.object([("attributes", Self.aggregateAttributes), ("expr0", 0), ("expr1", .null)])])
    }

    @Test func groupByWithHavingAndOrderByAggregate() throws {
        let r = try query(
            "SELECT Industry, COUNT(Id) cnt FROM Account GROUP BY Industry HAVING COUNT(Id) > 2 ORDER BY COUNT(Id) DESC"
        )
        #expect(
            r.records == [
                .object([("attributes", Self.aggregateAttributes), ("Industry", "Technology"), ("cnt", 7)]),
                .object([("attributes", Self.aggregateAttributes), ("Industry", "Finance"), ("cnt", 4)]),
            ])
        let grouped = try query("SELECT Industry FROM Account GROUP BY Industry HAVING Industry LIKE 'M%'")
        #expect(grouped.strings("Industry") == ["Manufacturing", "Media"])
    }

    @Test func groupByParentPathWithCount() throws {
        let r = try query("SELECT Owner.Name, COUNT(Id) FROM Account GROUP BY Owner.Name")
        #expect(r.strings("Name") == ["Ada Admin", "Rita Rep", "Sam Seller"])
        #expect(r.records.map { $0["expr0"]! } == [5, 6, 9])
    }

    @Test func groupByManyKeysLimitOffset() throws {
        let r = try query(
            "SELECT BillingState, Industry, SUM(AnnualRevenue) revenue FROM Account WHERE BillingState = 'CA' GROUP BY BillingState, Industry ORDER BY SUM(AnnualRevenue) DESC LIMIT 2 OFFSET 1"
        )
        #expect(r.strings("Industry") == ["Finance", "Healthcare"])
        #expect(r.records[0]["revenue"] == .double(427_000_000))
        #expect(r.records[0].objectValue!.map(\.0) == ["attributes", "BillingState", "Industry", "revenue"])
    }

    @Test func formatAnAggregate() throws {
        let r = try query("SELECT FORMAT(SUM(AnnualRevenue)) total FROM Account WHERE BillingState = 'TX'")
        #expect(r.records[0]["total"] == "$154,300,000.00")
    }

    @Test func groupsIgnoreCase() throws {
        let org = try FixtureSupport.smallOrg()
        try org.insert(
            type: "Account",
            fields: [("Name", "lower"), ("BillingState", "ca"), ("OwnerId", .string(FixtureSupport.user(1)))])
        let r = try query(
            "SELECT BillingState, COUNT(Id) FROM Account WHERE BillingState = 'CA' GROUP BY BillingState", org: org)
        #expect(r.records.count == 1)
        #expect(r.records[0]["expr0"] == 11)
        #expect(r.records[0]["BillingState"] == "CA")
    }
}
