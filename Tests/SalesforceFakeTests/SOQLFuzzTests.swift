import Foundation
import Testing
@testable import SalesforceFake

/// 100,000 generated queries per run (grammar over the small org's schemas, then mutated): each
/// ends in a result or one of Salesforce's query errors within 2 s (a hang bound), and the plan cache stays
/// bounded. On failure the message names the seed and case; replay one with
/// `whalesim fuzz soql --seed <seed> --from <case> --count 1 --verbose`.
@Suite struct SOQLFuzzTests {
    static let seed: UInt64 = 20_261_122
    static let count = 100_000
    /// Four slices of 25,000 cases, run in parallel by Swift Testing (each on its own org).
    static let slices = 4

    @Test(arguments: 0..<slices)
    func generatedQueriesGetAnAnswerOrASalesforceError(slice: Int) throws {
        let org = try FixtureSupport.smallOrg()
        let size = Self.count / Self.slices
        // 2 s: a hang detector with room for a loaded CI machine (the slowest case measured 0.4 s
        // in a debug build with both cores busy; alone it takes about 20 ms).
        let report = SOQLFuzzRun.run(
            org: org, seed: Self.seed, range: slice * size..<(slice + 1) * size, timeBound: .seconds(2))
        for finding in report.findings.prefix(20) {
            Issue.record(
                "\(finding)\n  replay: whalesim fuzz soql --seed \(Self.seed) --from \(finding.index) --count 1 --verbose"
            )
        }
        #expect(report.cases == size)
        // Both outcomes are exercised in earnest, not just the parser's first token.
        #expect(
            report.answered > size / 20 && report.refused > size / 5,
            "\(report.answered) answered, \(report.refused) refused")
        #expect(report.planCacheEntries <= 1024)
        print(
            "SOQL fuzz slice \(slice): \(report.cases) cases in \(report.elapsed), \(report.answered) answered, \(report.refused) refused, slowest \(report.slowest) (case \(report.slowestIndex))"
        )
    }

    @Test func aCaseDependsOnlyOnSeedAndIndex() {
        let a = SOQLFuzzer(org: FixtureSupport.shared, seed: 5), b = SOQLFuzzer(org: FixtureSupport.shared, seed: 5)
        #expect(a.query(12_345) == b.query(12_345))
        #expect((0..<50).map(a.query) == (0..<50).map(b.query))
        #expect(a.query(1) != SOQLFuzzer(org: FixtureSupport.shared, seed: 6).query(1))
    }
}

/// Salesforce's semi-join and size limits, each with the error it answers.
@Suite struct SOQLLimitTests {
    @Test func moreThanTwentyChildSubqueriesAreMalformed() {
        let twenty = (0..<20).map { _ in "(SELECT Id FROM Contacts)" }.joined(separator: ", ")
        let e = queryError("SELECT Id, \(twenty), (SELECT Id FROM Contacts) FROM Account")
        #expect(e?.errorCode == "MALFORMED_QUERY")
        #expect(headline(e) == "No more than 20 parent-to-child relationships can be specified in a query")
    }

    /// The small org has too few lookups to name 36 parents, so this test adds 36 to Account.
    @Test func moreThanThirtyFiveParentRelationshipsAreMalformed() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "whalesim-lookups-\(UUID().uuidString.prefix(8))")
        try FileManager.default.copyItem(at: FixtureSupport.orgDirectory("small"), to: directory)
        defer { try? FileManager.default.removeItem(at: directory) }
        let schemaFile = directory.appendingPathComponent("schema/Account.json")
        var schema = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: schemaFile)) as? [String: Any])
        var fields = try #require(schema["fields"] as? [[String: Any]])
        for n in 1...36 {
            fields.append([
                "name": "Ref\(n)__c", "type": "reference", "referenceTo": ["User"], "relationshipName": "Ref\(n)__r",
                "custom": true,
            ])
        }
        schema["fields"] = fields
        try JSONSerialization.data(withJSONObject: schema).write(to: schemaFile)
        let org = try Org.load(directory: directory)
        let select = { (n: Int) in (1...n).map { "Ref\($0)__r.Username" }.joined(separator: ", ") }
        #expect(try query("SELECT \(select(35)) FROM Account", org: org).records.count > 0, "35 parents are allowed")
        let e = queryError("SELECT \(select(36)) FROM Account", org: org)
        #expect(e?.errorCode == "MALFORMED_QUERY")
        #expect(headline(e) == "No more than 35 child-to-parent relationships can be specified in a query")
    }

    @Test func nestedSemiJoinIsMalformedNotATrap() {
        let e = queryError(
            "SELECT Id FROM Account WHERE Id IN (SELECT AccountId FROM Contact WHERE AccountId IN (SELECT Id FROM Account))"
        )
        #expect(e?.errorCode == "MALFORMED_QUERY")
        #expect(headline(e) == "Nesting of semi join sub-selects is not supported")
    }

    @Test func semiJoinRules() {
        let under = "SELECT Id FROM Account WHERE Name = 'x' OR Id IN (SELECT AccountId FROM Contact)"
        #expect(headline(queryError(under)) == "Semi join sub-selects are not allowed with the 'OR' operator")
        let not = "SELECT Id FROM Account WHERE NOT Id IN (SELECT AccountId FROM Contact)"
        #expect(
            headline(queryError(not))
                == "Semi join sub-selects are only allowed at the top level WHERE expressions and not in nested WHERE expressions."
        )
        let three =
            "SELECT Id FROM Account WHERE Id IN (SELECT AccountId FROM Contact) AND Id IN (SELECT AccountId FROM Opportunity) AND Id NOT IN (SELECT WhatId FROM Task)"
        #expect(headline(queryError(three)) == "Maximum 2 semi join sub-selects are allowed")
        // Two, one of them an anti-join, is within the limit.
        #expect(throws: Never.self) {
            try query(
                "SELECT Id FROM Account WHERE Id IN (SELECT AccountId FROM Contact) AND Id NOT IN (SELECT AccountId FROM Opportunity)"
            )
        }
    }

    @Test func sizeLimits() {
        let deep = String(repeating: "(", count: 10_000) + "Name = 'x'" + String(repeating: ")", count: 10_000)
        #expect(queryError("SELECT Id FROM Account WHERE " + deep)?.errorCode == "QUERY_TOO_COMPLICATED")
        let nots = String(repeating: "NOT ", count: 10_000) + "Name = 'x'"
        #expect(queryError("SELECT Id FROM Account WHERE " + nots)?.errorCode == "QUERY_TOO_COMPLICATED")
        let long = "SELECT Id FROM Account WHERE Name = '" + String(repeating: "a", count: 100_000) + "'"
        #expect(queryError(long)?.message == "SOQL statements cannot be longer than 100000 characters.")
        #expect(queryError("SELECT Id FROM Account OFFSET 2001")?.errorCode == "NUMBER_OUTSIDE_VALID_RANGE")
        // LIMIT and OFFSET are 32-bit: a larger one is an unexpected token, so LIMIT + OFFSET cannot overflow.
        #expect(
            headline(queryError("SELECT Id FROM Account ORDER BY Name LIMIT 9223372036854775807 OFFSET 1"))
                == "unexpected token: '9223372036854775807'")
        #expect(throws: Never.self) { try query("SELECT Id FROM Account ORDER BY Name LIMIT 2147483647 OFFSET 2000") }
    }
}
