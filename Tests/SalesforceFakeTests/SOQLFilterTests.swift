import Testing
@testable import SalesforceFake

@Suite struct SOQLFilterTests {
    typealias F = FixtureSupport

    func names(_ soql: String) throws -> [String?] { try query(soql).strings("Name") }
    func count(_ soql: String) throws -> Int { try query(soql).totalSize }

    @Test func keywordsObjectsAndFieldsIgnoreCase() throws {
        let a = try query("select NAME from ACCOUNT where billingstate = 'ca' order by name limit 1")
        #expect(a.records[0].objectValue!.map(\.0) == ["attributes", "Name"])
        #expect(a.records[0]["attributes"]?["type"] == "Account")
        #expect(a.strings("Name") == ["Acme Corporation"])
    }

    @Test func stringEqualityIgnoresCaseAndNotEqualKeepsNulls() throws {
        #expect(try count("SELECT Id FROM Account WHERE Industry = 'TECHNOLOGY'") == 7)
        #expect(try count("SELECT Id FROM Account WHERE Type != 'prospect'") == 12)  // includes the 2 null Types
    }

    @Test func nullComparisons() throws {
        #expect(try names("SELECT Name FROM Account WHERE Type = null") == ["Globex Finance", "Nakatomi Trading"])
        #expect(try count("SELECT Id FROM Account WHERE Type != null") == 18)
    }

    @Test func likeWildcardsAndEscapes() throws {
        #expect(
            try query("SELECT Company FROM Lead WHERE Company LIKE 'Ac_e%'").strings("Company") == [
                "Acme Corp", "ACME Widgets", "Acme", "Acne Skincare",
            ])
        #expect(
            try query(#"SELECT Company FROM Lead WHERE Company LIKE '100\% %'"#).strings("Company") == [
                "100% Natural_Foods"
            ])
        #expect(
            try query(#"SELECT Company FROM Lead WHERE Company LIKE '%\_foods'"#).strings("Company") == [
                "100% Natural_Foods"
            ])
        #expect(try query("SELECT Company FROM Lead WHERE Company LIKE '%_Foods'").totalSize == 1)
        #expect(try query("SELECT Company FROM Lead WHERE Company LIKE 'acme'").strings("Company") == ["Acme"])
        #expect(try query("SELECT Company FROM Lead WHERE Company LIKE '%Co'").strings("Company") == ["Quill & Co"])
        #expect(try query("SELECT Company FROM Lead WHERE Company LIKE '%'").totalSize == 8)
    }

    @Test func quoteEscapeInString() throws {
        #expect(try query(#"SELECT LastName FROM Lead WHERE LastName = 'O\'Brien'"#).strings("LastName") == ["O'Brien"])
        #expect(try query(#"SELECT Id FROM Account WHERE Name = 'Acme\\Corporation\n'"#).totalSize == 0)
        // Long text areas are not filterable, as in Salesforce.
        let error = queryError("SELECT Id FROM Account WHERE Description = 'x'")
        #expect(error?.errorCode == "INVALID_FIELD")
        #expect(headline(error) == "field 'Description' can not be filtered in a query call")
    }

    @Test func inAndNotIn() throws {
        #expect(try count("SELECT Id FROM Account WHERE Industry IN ('technology', 'FINANCE')") == 11)
        #expect(try count("SELECT Id FROM Account WHERE Industry NOT IN ('Technology', 'Finance')") == 9)
        #expect(try count("SELECT Id FROM Account WHERE Industry IN ('Retail', null)") == 3)
        #expect(try count("SELECT Id FROM Account WHERE OwnerId IN ('\(F.user(1))', '\(F.user(3).prefix(15))')") == 11)
    }

    @Test func andOrNotWithParentheses() throws {
        #expect(try count("SELECT Id FROM Account WHERE NOT (Industry = 'Technology' OR Industry = 'Finance')") == 9)
        #expect(
            try count(
                "SELECT Id FROM Account WHERE (Industry = 'Technology' OR Industry = 'Finance') AND BillingState = 'CA'"
            ) == 8)
        #expect(
            try count(
                "SELECT Id FROM Account WHERE Industry = 'Technology' OR (Industry = 'Finance' AND BillingState = 'CA')"
            ) == 10)
        #expect(try count("SELECT Id FROM Account WHERE NOT Name LIKE 'A%' AND NOT BillingState = 'CA'") == 9)
    }

    @Test func numbers() throws {
        #expect(
            try names("SELECT Name FROM Account WHERE NumberOfEmployees > 5000") == [
                "Globex Finance", "Hooli", "Gringotts Bank", "Massive Dynamic",
            ])
        #expect(try count("SELECT Id FROM Account WHERE AnnualRevenue >= 430000000") == 3)
        #expect(try count("SELECT Id FROM Account WHERE AnnualRevenue < 2000000") == 2)
        #expect(try count("SELECT Id FROM Account WHERE AnnualRevenue <= 2000000.0") == 3)
        #expect(try count("SELECT Id FROM Account WHERE NumberOfEmployees = 1200") == 1)
        #expect(try count("SELECT Id FROM Account WHERE NumberOfEmployees > -1") == 18)
    }

    @Test func booleansAndDerivedFields() throws {
        #expect(try names("SELECT Name FROM User WHERE IsActive = false") == ["Ivan Idle"])
        #expect(
            try query("SELECT Subject FROM Task WHERE IsClosed = true").strings("Subject") == [
                "Call Alice about renewal", "Intro email", "Log call",
            ])
        #expect(try names("SELECT Name FROM Contact WHERE Name = 'heidi evans'") == ["Heidi Evans"])
        #expect(try names("SELECT Name FROM Contact WHERE FirstName = null") == ["Orphan"])
    }

    @Test func dateAndDateTimeValues() throws {
        #expect(
            try query("SELECT Subject FROM Task WHERE ActivityDate > 2024-06-14").strings("Subject") == [
                "Follow up lead", "Quarterly review", "Demo for Globex",
            ])
        #expect(try count("SELECT Id FROM Task WHERE ActivityDate = 2024-06-14") == 1)
        #expect(
            try names("SELECT Name FROM Account WHERE CreatedDate > 2024-06-14T00:00:00Z") == [
                "Acme Corporation", "Globex Finance", "Dunder Mifflin",
            ])
        #expect(
            try names("SELECT Name FROM Account WHERE CreatedDate = 2024-06-14T16:00:00.000+0000") == [
                "Acme Corporation"
            ])
        #expect(
            try names("SELECT Name FROM Account WHERE CreatedDate < 2024-01-01T00:00:00-09:00") == [
                "Hooli", "Aperture Science",
            ])
    }

    @Test func multiPicklistIncludesAndExcludes() throws {
        #expect(
            try names("SELECT Name FROM Account WHERE Regions__c INCLUDES ('West;EMEA')") == [
                "Hooli", "Gringotts Bank",
            ])
        #expect(
            try names("SELECT Name FROM Account WHERE Regions__c INCLUDES ('east', 'APAC')") == [
                "Acme Corporation", "Umbrella Labs", "Gringotts Bank", "Massive Dynamic", "Dunder Mifflin",
            ])
        #expect(
            try names("SELECT Name FROM Account WHERE Regions__c EXCLUDES ('West') AND Regions__c != null") == [
                "Umbrella Labs", "Soylent Foods", "Massive Dynamic", "Dunder Mifflin",
            ])
    }

    @Test func parentPathsInWhere() throws {
        #expect(try count("SELECT Id FROM Account WHERE Owner.Name = 'Rita Rep'") == 6)
        #expect(
            try query(
                "SELECT LastName FROM Contact WHERE Account.Owner.Alias = 'rrep' AND Account.Industry = 'Technology'"
            ).strings("LastName") == ["Moore", "Patel", "Hughes", "Khan", "Diaz"])
        #expect(try count("SELECT Id FROM Contact WHERE Account.Name = null") == 1)
    }

    @Test func semiJoinAndAntiJoin() throws {
        #expect(
            try names(
                "SELECT Name FROM Account WHERE Id IN (SELECT AccountId FROM Opportunity WHERE StageName != 'Closed Lost')"
            ) == ["Acme Corporation", "Globex Finance", "Hooli", "Gringotts Bank"])
        #expect(
            try names("SELECT Name FROM Account WHERE Id NOT IN (SELECT AccountId FROM Contact)") == [
                "Vandelay Industries", "Nakatomi Trading", "Prestige Worldwide",
            ])
        #expect(
            try query(
                "SELECT LastName FROM Contact WHERE AccountId IN (SELECT Id FROM Account WHERE BillingState = 'TX')"
            ).strings("LastName") == ["Okafor", "Smith"])
        #expect(
            headline(queryError("SELECT Name FROM Account WHERE Name IN (SELECT AccountId FROM Contact)"))
                == "Semi-join and anti-join left operands must be an Id or a reference field: Name")
        #expect(
            headline(queryError("SELECT Name FROM Account WHERE Id IN (SELECT LastName FROM Contact)"))
                == "A semi-join or anti-join subquery must select exactly one Id or reference field")
    }

    @Test func polymorphicWhoAndWhat() throws {
        #expect(
            try query("SELECT Subject FROM Task WHERE Who.Type = 'Lead'").strings("Subject") == [
                "Follow up lead", "Intro email",
            ])
        #expect(
            try query("SELECT Subject FROM Task WHERE What.Name LIKE 'Acme%'").strings("Subject") == [
                "Call Alice about renewal", "Send proposal",
            ])
    }
}
