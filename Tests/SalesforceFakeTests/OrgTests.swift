import Foundation
import Testing
@testable import SalesforceFake

@Suite struct OrgTests {
    typealias F = FixtureSupport

    @Test func loadsTheSmallOrg() throws {
        let org = F.shared
        #expect(org.schemas.map(\.name) == ["Account", "Contact", "Lead", "Opportunity", "Task", "User"])
        #expect(
            ["Account", "Contact", "Lead", "Opportunity", "Task", "User"].map(org.count(of:)) == [20, 25, 8, 6, 8, 4])
        #expect(org.settings.orgId == "00D5g0000012345EAA")
        #expect(org.settings.timeZone == "America/Los_Angeles")
        #expect(org.settings.now == Date(timeIntervalSince1970: 1_718_384_400))
        #expect(org.settings.apiVersions.first == "37.0" && org.settings.apiVersions.last == "59.0")
        #expect(org.settings.supportsVersion("v37.0") && !org.settings.supportsVersion("36.0"))
        #expect(org.credential(username: "ADMIN@whaler.test")?.userId == F.user(1))
        #expect(org.credential(username: "admin@whaler.test")?.accepts(password: "whaler123TOKEN123") == true)
        #expect(org.credential(username: "admin@whaler.test")?.accepts(password: "wrong") == false)
        #expect(org.canonicalObjectName("opportunity") == "Opportunity")
        #expect(org.canonicalObjectName("Widget") == nil)
        #expect(org.schema(forId: F.lead(1))?.name == "Lead")
    }

    @Test func derivedFieldsAreComputed() throws {
        let org = F.shared
        #expect(org.record(id: F.contact(1))?["Name"] == "Heidi Evans")
        #expect(org.record(id: F.contact(25))?["Name"] == "Orphan")
        #expect(org.record(id: F.user(2))?["name"] == "Sam Seller")
        #expect(org.record(id: F.task(1))?["IsClosed"] == true)
        #expect(org.record(id: F.task(2))?["IsClosed"] == false)
        #expect(org.record(id: F.account(1))?["IsDeleted"] == false)
        // Fixture rows without CreatedDate get the frozen now.
        #expect(org.record(id: F.contact(1))?["CreatedDate"] == "2024-06-14T17:00:00.000+0000")
    }

    @Test func caseSafeIds() throws {
        #expect(SalesforceId.to18("001A0000006Vm9r") == "001A0000006Vm9rIAC")
        #expect(SalesforceId.to18("001A0000006Vm9rIAC") == "001A0000006Vm9rIAC")
        #expect(SalesforceId.to18("001A0000006Vm9riac") == "001A0000006Vm9rIAC")
        // 18-character ids are case-insensitive: the suffix restores the case.
        #expect(SalesforceId.to18("001a0000006vm9riac") == "001A0000006Vm9rIAC")
        #expect(SalesforceId.to18("001A0000006VM9RIAC") == "001A0000006Vm9rIAC")
        #expect(SalesforceId.to18("001A0000006Vm9rAAA") == "001a0000006vm9rAAA")
        #expect(SalesforceId.to18("001A0000006Vm9r9AA") == nil)  // '9' is no suffix character
        #expect(SalesforceId.to18("00100000000000011A") == nil)  // a digit flagged upper case
        #expect(SalesforceId.to18("short") == nil)
        #expect(SalesforceId.to18("001A0000006Vm9-") == nil)
        #expect(F.shared.record(id: String(F.account(3).prefix(15)))?["Name"] == "Initech")
        #expect(F.shared.record(id: F.account(3).lowercased())?["Name"] == "Initech")
        #expect(
            try query("SELECT Name FROM Account WHERE Id = '\(F.account(3).uppercased())'").strings("Name") == [
                "Initech"
            ])
    }

    @Test func insertGivesADeterministicIdAndDefaults() throws {
        let org = try F.smallOrg()
        let id = try org.insert(
            type: "contact",
            fields: [("lastname", "Newman"), ("FirstName", "Nia"), ("AccountId", .string(F.account(2)))])
        #expect(id == SalesforceId.make(prefix: "003", counter: 1))
        #expect(id.count == 18 && id.hasPrefix("003"))
        let record = try org.record(type: "Contact", id: id)
        #expect(record["Name"] == "Nia Newman")
        #expect(record["OwnerId"]?.stringValue == F.user(1))
        #expect(record["CreatedDate"] == "2024-06-14T17:00:00.000+0000")
        let second = try org.insert(type: "Contact", fields: [("LastName", "Two")])
        #expect(second == SalesforceId.make(prefix: "003", counter: 2))
        #expect(
            try query("SELECT Name FROM Contact WHERE AccountId = '\(F.account(2))'", org: org).strings("Name") == [
                "Ivan Okafor", "Sybil Reyes", "Nia Newman",
            ])
        // The shared org is untouched.
        #expect(F.shared.count(of: "Contact") == 25)
    }

    @Test func insertRejectsBadInput() throws {
        let org = try F.smallOrg()
        #expect(throws: SalesforceError.unsupportedType("Widget")) { try org.insert(type: "Widget", fields: []) }
        #expect(throws: SalesforceError.invalidField("No such column 'Foo' on sobject of type Account")) {
            try org.insert(type: "Account", fields: [("Name", "x"), ("Foo", 1)])
        }
        #expect(throws: SalesforceError.requiredFieldMissing(["Name"])) {
            try org.insert(type: "Account", fields: [("Industry", "Finance")])
        }
        #expect(throws: SalesforceError.self) {
            try org.insert(type: "Contact", fields: [("LastName", "x"), ("Name", "y")])
        }
        do {
            try org.insert(type: "Account", fields: [("Name", "x"), ("Industry", "Farming")])
        } catch {
            #expect(error.errorCode == "INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST")
            #expect(error.message == "Industry: bad value for restricted picklist field: Farming")
        }
        do {
            try org.insert(type: "Account", fields: [("Name", "x"), ("NumberOfEmployees", "many")])
        } catch {
            #expect(error.errorCode == "JSON_PARSER_ERROR")
            #expect(
                error.message
                    == #"Cannot deserialize instance of int from VALUE_STRING value "many" for field NumberOfEmployees"#
            )
        }
        do {
            try org.insert(type: "Contact", fields: [("LastName", "x"), ("AccountId", .string(F.user(1)))])
        } catch {
            #expect(error.errorCode == "INVALID_CROSS_REFERENCE_KEY")
        }
        do {
            try org.insert(type: "Contact", fields: [("LastName", "x"), ("AccountId", "garbage")])
        } catch {
            #expect(error == .malformedId("garbage"))
        }
        do {
            try org.insert(type: "Contact", fields: [("LastName", "x"), ("Birthdate", "1/2/1990")])
        } catch {
            #expect(error.errorCode == "INVALID_TYPE_ON_FIELD_IN_RECORD")
        }
        #expect(org.count(of: "Account") == 20)
    }

    @Test func updateRecomputesDerivedFields() throws {
        let org = try F.smallOrg()
        try org.update(type: "Contact", id: F.contact(1), fields: [("FirstName", "Hedy"), ("Title", .null)])
        let record = try org.record(type: "contact", id: F.contact(1))
        #expect(record["Name"] == "Hedy Evans")
        #expect(record["Title"] == .null)
        try org.update(type: "Task", id: F.task(2), fields: [("Status", "Completed")])
        #expect(try org.record(type: "Task", id: F.task(2))["IsClosed"] == true)
        #expect(throws: SalesforceError.requiredFieldMissing(["LastName"])) {
            try org.update(type: "Contact", id: F.contact(1), fields: [("LastName", .null)])
        }
        #expect(throws: SalesforceError.notFound()) { try org.update(type: "Contact", id: F.account(1), fields: []) }
        #expect(
            throws: SalesforceError.notFound("Provided external ID field does not exist or is not accessible: nope")
        ) {
            try org.update(type: "Contact", id: "nope", fields: [])
        }
        #expect(throws: SalesforceError.unsupportedType("Widget")) {
            try org.update(type: "Widget", id: F.account(1), fields: [])
        }
        #expect(throws: SalesforceError.self) {
            try org.update(type: "Contact", id: F.contact(1), fields: [("Id", "x")])
        }
    }

    @Test func deleteIsSoftAndVisibleToQueryAll() throws {
        let org = try F.smallOrg()
        try org.delete(type: "Account", id: F.account(1))
        #expect(try query("SELECT Id FROM Account", org: org).totalSize == 19)
        let all = try query("SELECT Name, IsDeleted FROM Account WHERE Name = 'Acme Corporation'", org: org, all: true)
        #expect(all.records.first?["IsDeleted"] == true)
        #expect(throws: SalesforceError.entityIsDeleted()) { try org.delete(type: "Account", id: F.account(1)) }
        #expect(throws: SalesforceError.entityIsDeleted()) { try org.record(type: "Account", id: F.account(1)) }
        // Children still point at the deleted parent; the subquery skips deleted children.
        try org.delete(type: "Contact", id: F.contact(2))
        let acme = try query(
            "SELECT (SELECT LastName FROM Contacts) FROM Account WHERE Id = '\(F.account(1))'", org: org, all: true)
        #expect(acme.records[0]["Contacts"]?["totalSize"] == 3)
        let live = try query("SELECT LastName FROM Contact WHERE AccountId = '\(F.account(1))'", org: org)
        #expect(live.strings("LastName") == ["Evans", "Khan"])
    }

    @Test func recordJSONForTheRestApi() throws {
        let json = F.shared.record(id: F.user(1))!.json(apiVersion: "v58.0")
        #expect(json.objectValue!.map(\.0).prefix(4) == ["attributes", "Id", "IsDeleted", "Username"])
        #expect(json["attributes"]?["url"] == .string("/services/data/v58.0/sobjects/User/\(F.user(1))"))
    }
}
