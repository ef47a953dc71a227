import Testing
@testable import SalesforceFake
import WhalesimTesting

/// Bad input of every kind gets a `SalesforceError`, never a crash: seeded mutations of valid
/// queries (tokens dropped, duplicated, swapped, replaced by junk), plus hand-picked extremes.
@Suite struct SOQLRobustnessTests {
    static let seeds: [String] = [
        "SELECT Id, Name, Owner.Name, (SELECT LastName FROM Contacts WHERE Title != null ORDER BY LastName LIMIT 2) FROM Account WHERE (Industry = 'Technology' OR Industry = 'Finance') AND NOT Name LIKE 'A%' ORDER BY AnnualRevenue DESC NULLS LAST LIMIT 5 OFFSET 1",
        "SELECT Industry, COUNT(Id) cnt, SUM(AnnualRevenue), MAX(CreatedDate) FROM Account WHERE CreatedDate = LAST_N_DAYS:30 GROUP BY Industry HAVING COUNT(Id) > 1 ORDER BY COUNT(Id) DESC",
        "SELECT Subject, Who.Name, What.Name FROM Task WHERE WhoId IN (SELECT Id FROM Contact WHERE Account.BillingState = 'CA') AND ActivityDate >= 2024-06-01",
        "SELECT FIELDS(ALL), toLabel(Type), FORMAT(AnnualRevenue) rev FROM Account WHERE Regions__c INCLUDES ('West;EMEA') LIMIT 10",
    ]
    static let junk = [
        "(", ")", ",", ".", "'", "= ", "SELECT", "FROM", "WHERE", "AND", "OR", "NOT", "IN", "NULL", "LIMIT", "-", ":",
        "2024-02-30", "9999999999999999999999", "\\", "COUNT(", "Owner.", "TODAY", "LAST_N_DAYS:99999999999999",
    ]

    @Test func mutatedQueriesNeverCrash() throws {
        let seed: UInt64 = 20_240_614
        var rng = SplitMix64(seed: seed)
        var errors = 0, answers = 0
        for i in 0..<3000 {
            var words = Self.seeds[i % Self.seeds.count].split(separator: " ").map(String.init)
            for _ in 0..<(1 + rng.below(3)) {
                let at = rng.below(words.count)
                switch rng.below(4) {
                case 0: words.remove(at: at)
                case 1: words.insert(words[rng.below(words.count)], at: at)
                case 2: words.swapAt(at, rng.below(words.count))
                default: words[at] = Self.junk[rng.below(Self.junk.count)]
                }
                if words.isEmpty { words = ["SELECT"] }
            }
            let soql = words.joined(separator: " ")
            do {
                _ = try SOQL.execute(soql, in: FixtureSupport.shared, apiVersion: "59.0", includeDeleted: false)
                answers += 1
            } catch {
                errors += 1
                #expect(
                    [
                        "MALFORMED_QUERY", "INVALID_FIELD", "INVALID_TYPE", "INVALID_QUERY_FILTER_OPERATOR",
                        "NUMBER_OUTSIDE_VALID_RANGE",
                    ].contains(error.errorCode),
                    "seed \(seed), query: \(soql)")
                #expect(error.httpStatus == 400)
            }
        }
        #expect(errors > 1000 && answers > 10, "seed \(seed)")
    }

    @Test func extremes() {
        #expect(
            headline(queryError("SELECT Id FROM Account WHERE CreatedDate = NEXT_N_MONTHS:9223372036854775807"))
                == "unexpected token: 'NEXT_N_MONTHS:9223372036854775807'")
        #expect(
            headline(queryError("SELECT Id FROM Account LIMIT 99999999999999999999"))
                == "unexpected token: '99999999999999999999'")
        #expect(
            headline(queryError("SELECT Id FROM Account WHERE NumberOfEmployees = 1e5")) == "unexpected token: '1e5'")
        #expect(headline(queryError("SELECT Id FROM Account WHERE Name IN ()")) == "unexpected token: ')'")
        #expect(
            headline(queryError("SELECT Id, (SELECT Id, (SELECT Id FROM Tasks) FROM Contacts) FROM Account"))
                == "Nesting of child relationship queries is not supported")
        let deep = String(repeating: "(", count: 200) + "Name = 'x'" + String(repeating: ")", count: 200)
        #expect(throws: Never.self) { try query("SELECT Id FROM Account WHERE " + deep) }
        #expect(throws: Never.self) { try query("SELECT Id FROM Lead WHERE Company LIKE '%a%b%c%d%e%f%g%h%i%j%k%'") }
        #expect(throws: Never.self) { try query("SELECT FORMAT(SUM(AnnualRevenue)) FROM Account") }
    }
}
