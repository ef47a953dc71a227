import Testing
@testable import SalesforceFake

@Suite struct OrgConcurrencyTests {
    /// Readers run while writers insert: every answer is a consistent snapshot (counts only grow,
    /// never a torn read), and the final count is exact.
    @Test func queriesDuringWrites() async throws {
        let org = try OrgGenerator.generate(seed: 9, accounts: 1000, template: FixtureSupport.shared)
        let before = org.count(of: "Account")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for w in 0..<2 {
                group.addTask {
                    for i in 0..<100 {
                        try org.insert(
                            type: "Account",
                            fields: [("Name", .string("w\(w)-\(i)")), ("Industry", "Media"), ("BillingState", "ZZ")])
                    }
                }
            }
            for _ in 0..<3 {
                group.addTask {
                    var last = 0
                    for _ in 0..<100 {
                        let n = try SOQL.execute(
                            "SELECT Id FROM Account WHERE BillingState = 'ZZ' AND Industry = 'Media'", in: org,
                            apiVersion: "59.0", includeDeleted: false
                        ).totalSize
                        #expect(n >= last)
                        last = n
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(org.count(of: "Account") == before + 200)
        #expect(try query("SELECT COUNT() FROM Account WHERE BillingState = 'zz'", org: org).totalSize == 200)
    }

    @Test func planCacheEvictsLeastRecentlyUsed() throws {
        var cache = QueryCache(capacity: 2)
        let org = FixtureSupport.shared
        let a = try Compiler.compile("SELECT Id FROM Account", org: org)
        let b = try Compiler.compile("SELECT Id FROM Contact", org: org)
        let c = try Compiler.compile("SELECT Id FROM Lead", org: org)
        cache.put("a", a)
        cache.put("b", b)
        #expect(cache.get("a") === a)
        cache.put("c", c)
        #expect(cache.get("b") == nil)
        #expect(cache.get("a") === a && cache.get("c") === c)
        #expect(cache.count == 2)
    }
}

@Suite struct OrgConcurrentUpdateTests {
    /// Two writers changing different fields of one record concurrently both keep their change.
    @Test func concurrentUpdatesOfOneRecordKeepEveryField() async throws {
        let org = try FixtureSupport.smallOrg()
        let id = FixtureSupport.contact(1)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for i in 0..<200 { try org.update(type: "Contact", id: id, fields: [("Title", .string("T\(i)"))]) }
            }
            group.addTask {
                for i in 0..<200 { try org.update(type: "Contact", id: id, fields: [("Phone", .string("P\(i)"))]) }
            }
            try await group.waitForAll()
        }
        let record = try org.record(type: "Contact", id: id)
        #expect(record["Title"] == "T199")
        #expect(record["Phone"] == "P199")
    }
}
