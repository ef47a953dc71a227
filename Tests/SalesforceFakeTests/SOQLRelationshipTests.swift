import Testing
@testable import SalesforceFake

@Suite struct SOQLRelationshipTests {
    typealias F = FixtureSupport

    @Test func parentPathsNestUnderOneObject() throws {
        let r = try query(
            "SELECT Id, Account.Name, LastName, Account.Owner.Name, account.industry FROM Contact WHERE Id = '\(F.contact(1))'"
        )
        let expected: JSONValue = .object([
            (
                "attributes",
                .object([
                    ("type", "Contact"), ("url", .string("/services/data/v59.0/sobjects/Contact/\(F.contact(1))")),
                ])
            ),
            ("Id", .string(F.contact(1))),
            (
                "Account",
                .object([
                    (
                        "attributes",
                        .object([
                            ("type", "Account"),
                            ("url", .string("/services/data/v59.0/sobjects/Account/\(F.account(1))")),
                        ])
                    ),
                    ("Name", "Acme Corporation"),
                    (
                        "Owner",
                        .object([
                            (
                                "attributes",
                                .object([
                                    ("type", "User"),
                                    ("url", .string("/services/data/v59.0/sobjects/User/\(F.user(2))")),
                                ])
                            ),
                            ("Name", "Sam Seller"),
                        ])
                    ),
                    ("Industry", "Technology"),
                ])
            ),
            ("LastName", "Evans"),
        ])
        #expect(r.records == [expected])
    }

    @Test func nullParentMakesThePathNull() throws {
        let r = try query("SELECT LastName, Account.Name, Account.Owner.Name FROM Contact WHERE LastName = 'Orphan'")
        #expect(r.records[0]["Account"] == .null)
        #expect(r.records[0].objectValue!.map(\.0) == ["attributes", "LastName", "Account"])
    }

    @Test func fiveLevelsAllowedSixRejected() throws {
        let r = try query("SELECT Parent.Parent.Parent.Parent.Parent.Name FROM Account WHERE Name = 'Initech'")
        #expect(r.records[0]["Parent"]?["Parent"] == .null)
        #expect(
            headline(queryError("SELECT Parent.Parent.Parent.Parent.Parent.Parent.Name FROM Account"))
                == "SOQL statements cannot query more than 5 levels of relationships")
    }

    @Test func objectAliasPrefixesPaths() throws {
        let r = try query("SELECT a.Name, a.Owner.Name FROM Account a WHERE a.Name = 'Hooli'")
        #expect(r.records[0]["Name"] == "Hooli")
        #expect(r.records[0]["Owner"]?["Name"] == "Rita Rep")
    }

    @Test func childSubqueries() throws {
        let r = try query(
            """
            SELECT Name, (SELECT LastName, Account.Name FROM Contacts ORDER BY LastName DESC LIMIT 2), \
            (select name from opportunities where amount > 50000) FROM Account \
            WHERE Id IN ('\(F.account(1))', '\(F.account(11))') ORDER BY Name
            """)
        #expect(r.strings("Name") == ["Acme Corporation", "Vandelay Industries"])
        let contacts = r.records[0]["Contacts"]!
        #expect(contacts["totalSize"] == 2)
        #expect(contacts["done"] == true)
        #expect(contacts["records"]!.arrayValue!.map { $0["LastName"]!.stringValue! } == ["Khan", "Hughes"])
        #expect(contacts["records"]![0]!["Account"]?["Name"] == "Acme Corporation")
        #expect(contacts["records"]![0]!["attributes"]?["type"] == "Contact")
        #expect(r.records[0]["Opportunities"]?["records"]?.arrayValue?.count == 1)
        #expect(r.records[0]["Opportunities"]?["records"]?[0]?["Name"] == "Acme Renewal 2024")
        #expect(r.records[1]["Contacts"] == .null)
        #expect(r.records[1]["Opportunities"] == .null)
        #expect(r.records[0].objectValue!.map(\.0) == ["attributes", "Name", "Contacts", "Opportunities"])
    }

    @Test func polymorphicParents() throws {
        let r = try query(
            "SELECT Subject, Who.Name, Who.Type, What.Name FROM Task WHERE Subject IN ('Call Alice about renewal', 'Follow up lead', 'Log call') ORDER BY Subject"
        )
        #expect(r.strings("Subject") == ["Call Alice about renewal", "Follow up lead", "Log call"])
        let who = r.records[0]["Who"]!
        #expect(
            who["attributes"]
                == .object([
                    ("type", "Name"), ("url", .string("/services/data/v59.0/sobjects/Contact/\(F.contact(1))")),
                ]))
        #expect(who["Name"] == "Heidi Evans")
        #expect(who["Type"] == "Contact")
        #expect(r.records[0]["What"]?["Name"] == "Acme Corporation")
        #expect(r.records[1]["Who"]?["Type"] == "Lead")
        #expect(r.records[1]["What"] == .null)
        #expect(r.records[2]["Who"] == .null)
        // Only the Name pseudo-object's fields are reachable; a target without one reads null.
        let fields = try query(
            "SELECT What.Id, Who.Email, Who.Alias FROM Task WHERE Subject = 'Call Alice about renewal'")
        #expect(fields.records[0]["What"]?["Id"] == .string(F.account(1)))
        #expect(fields.records[0]["Who"]?["Email"] == "heidi.evans@example.com")
        #expect(fields.records[0]["Who"]?["Alias"] == .null)
        let error = queryError("SELECT What.Industry FROM Task")
        #expect(error?.errorCode == "INVALID_FIELD")
        #expect(headline(error)?.hasPrefix("No such column 'Industry' on entity 'Name'.") == true)
    }

    @Test func fieldsFunctions() throws {
        let custom = try query("SELECT FIELDS(CUSTOM) FROM Account WHERE Name = 'Hooli' LIMIT 1")
        #expect(custom.records[0].objectValue!.map(\.0) == ["attributes", "Regions__c", "Customer_Priority__c"])
        let standard = try query("SELECT FIELDS(STANDARD) FROM User WHERE Alias = 'aadmin'")
        #expect(
            standard.records[0].objectValue!.map(\.0) == ["attributes"]
                + FixtureSupport.shared.schema(named: "User")!.fields.map(\.name))
        let all = try query("SELECT Name, FIELDS(ALL) FROM Account LIMIT 200")
        #expect(all.records[0].objectValue!.count == 1 + FixtureSupport.shared.schema(named: "Account")!.fields.count)
        #expect(all.records[0].objectValue![1].0 == "Name")
    }

    @Test func toLabelAndFormat() throws {
        let r = try query(
            "SELECT toLabel(Type), FORMAT(AnnualRevenue), FORMAT(NumberOfEmployees) emp, FORMAT(CreatedDate) FROM Account WHERE Name = 'Acme Corporation'"
        )
        #expect(r.records[0].objectValue!.map(\.0) == ["attributes", "Type", "AnnualRevenue", "emp", "CreatedDate"])
        #expect(r.records[0]["Type"] == "Prospect")
        #expect(r.records[0]["AnnualRevenue"] == "$25,000,000.00")
        #expect(r.records[0]["emp"] == "1,200")
        #expect(r.records[0]["CreatedDate"] == "6/14/2024 9:00 AM")
        #expect(
            try query("SELECT FORMAT(ActivityDate) FROM Task WHERE Subject = 'Log call'").records[0]["ActivityDate"]
                == "5/30/2024")
        #expect(
            headline(queryError("SELECT toLabel(Name) FROM Account"))
                == "toLabel() only applies to picklist fields: Name")
    }
}
