import Testing
@testable import SalesforceFake

@Suite struct SOQLOrderingTests {
    func names(_ soql: String) throws -> [String?] { try query(soql).strings("Name") }

    @Test func descendingPutsNullsLastByDefault() throws {
        #expect(
            try names("SELECT Name FROM Account ORDER BY AnnualRevenue DESC LIMIT 3") == [
                "Gringotts Bank", "Hooli", "Oscorp",
            ])
        let all = try names("SELECT Name FROM Account ORDER BY AnnualRevenue DESC")
        #expect(all.suffix(2) == ["Vandelay Industries", "Nakatomi Trading"])
    }

    @Test func ascendingPutsNullsFirstByDefault() throws {
        #expect(
            try names("SELECT Name FROM Account ORDER BY AnnualRevenue LIMIT 3") == [
                "Vandelay Industries", "Nakatomi Trading", "Prestige Worldwide",
            ])
        #expect(
            try names("SELECT Name FROM Account ORDER BY AnnualRevenue ASC NULLS LAST LIMIT 2") == [
                "Prestige Worldwide", "Pied Piper",
            ])
        #expect(
            try names("SELECT Name FROM Account ORDER BY AnnualRevenue DESC NULLS FIRST LIMIT 3") == [
                "Vandelay Industries", "Nakatomi Trading", "Gringotts Bank",
            ])
    }

    @Test func severalKeys() throws {
        #expect(
            try names("SELECT Name FROM Account ORDER BY BillingState, Name LIMIT 4") == [
                "Aperture Science", "Acme Corporation", "Acme Subsidiary West", "Cyberdyne Systems",
            ])
        #expect(
            try names("SELECT Name FROM Account ORDER BY Owner.Name DESC, NumberOfEmployees DESC LIMIT 2") == [
                "Globex Finance", "Wayne Health",
            ])
    }

    @Test func textSortsIgnoringCase() throws {
        #expect(
            try query("SELECT Company FROM Lead ORDER BY Company").strings("Company") == [
                "100% Natural_Foods", "Acme", "Acme Corp", "ACME Widgets", "Acne Skincare", "Initrode", "Quill & Co",
                "Super acme Ltd",
            ])
    }

    @Test func whereThenOrderThenOffsetThenLimit() throws {
        #expect(
            try names("SELECT Name FROM Account ORDER BY Name LIMIT 2 OFFSET 1") == [
                "Acme Subsidiary West", "Aperture Science",
            ])
        #expect(
            try names("SELECT Name FROM Account WHERE BillingState = 'TX' ORDER BY Name DESC LIMIT 1 OFFSET 1") == [
                "Soylent Foods"
            ])
        #expect(try names("SELECT Name FROM Account ORDER BY Name OFFSET 19") == ["Wayne Health"])
        #expect(try query("SELECT Name FROM Account ORDER BY Name OFFSET 25").totalSize == 0)
        #expect(try query("SELECT Name FROM Account LIMIT 0").totalSize == 0)
        // Without ORDER BY rows come in insertion order.
        #expect(try names("SELECT Name FROM Account LIMIT 2") == ["Acme Corporation", "Globex Finance"])
    }

    @Test func datesAndBooleansSort() throws {
        #expect(
            try names("SELECT Name FROM Account ORDER BY CreatedDate DESC LIMIT 2") == [
                "Dunder Mifflin", "Acme Corporation",
            ])
        #expect(
            try names("SELECT Name FROM User ORDER BY IsActive, Name") == [
                "Ivan Idle", "Ada Admin", "Rita Rep", "Sam Seller",
            ])
    }
}

@Suite struct SOQLTopKTests {
    /// With LIMIT the engine keeps only the best rows instead of sorting everything; the answer
    /// must equal the full sort's window, ties and nulls included.
    @Test func limitedSortEqualsFullSortWindow() throws {
        let org = try OrgGenerator.generate(seed: 13, accounts: 3000, template: FixtureSupport.shared)
        for order in [
            "Type, Name DESC", "Rating DESC NULLS FIRST, AnnualRevenue",
            "BillingState NULLS LAST, CreatedDate DESC, Id",
        ] {
            let full = try query("SELECT Id FROM Account ORDER BY \(order)", org: org).strings("Id")
            for (limit, offset) in [(1, 0), (50, 10), (200, 0), (7, 700)] {
                let window = try query(
                    "SELECT Id FROM Account ORDER BY \(order) LIMIT \(limit) OFFSET \(offset)", org: org
                ).strings("Id")
                #expect(
                    window == Array(full[offset..<(offset + limit)]),
                    "ORDER BY \(order) LIMIT \(limit) OFFSET \(offset)")
            }
        }
    }
}
