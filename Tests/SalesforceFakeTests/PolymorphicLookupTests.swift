import Foundation
import Testing
@testable import SalesforceFake

/// A one-target lookup declared `"polymorphic": true` (Task.WhatId in an org whose tasks relate
/// only to accounts) behaves as Salesforce's does: describe says polymorphic, SOQL reads
/// `What.Type` and `What.Name` through the "Name" pseudo-object, and the flag survives save/load.
@Suite struct PolymorphicLookupTests {
    /// `withLogins: false` for save/load: the test org's credentials name users it does not hold.
    static func org(withLogins: Bool = true) throws -> Org {
        var org = try APITestOrg.make()
        let task = ObjectSchema(
            name: "Task", keyPrefix: "00T",
            fields: [
                FieldSchema(name: "Subject", type: .string),
                FieldSchema(
                    name: "WhatId", type: .reference, referenceTo: ["Account"], relationshipName: "What",
                    polymorphic: true),
                FieldSchema(name: "OwnerId", type: .reference, referenceTo: ["User"], relationshipName: "Owner"),
            ])
        var settings = org.settings
        settings.orgId = SalesforceId.to18("00D000000000001")!  // save/load checks the checksum suffix
        org = Org(settings: settings, schemas: org.schemas + [task], credentials: withLogins ? org.credentials : [])
        // Owners set explicitly: a saved org must load back, and the default owner has no User row here.
        let owner = try org.insert(type: "User", fields: [("Username", "ada@poly.test"), ("LastName", "Admin")])
        let account = try org.insert(type: "Account", fields: [("Name", "Acme"), ("OwnerId", .string(owner))])
        try org.insert(
            type: "Task", fields: [("Subject", "Call"), ("WhatId", .string(account)), ("OwnerId", .string(owner))])
        try org.insert(type: "Task", fields: [("Subject", "Nothing related"), ("OwnerId", .string(owner))])
        return org
    }

    @Test func describeReportsThePolymorphicForeignKey() throws {
        let fake = FakeSalesforce(org: try Self.org(), connectedApps: APITestOrg.apps)
        let login = fake.handle(APITestOrg.passwordGrant()).json
        let token = try #require(login["access_token"]?.stringValue)
        let json = fake.handle(APITestOrg.get("/services/data/v59.0/sobjects/Task/describe", token: token)).json
        let what = try #require(json["fields"]?.arrayValue?.first { $0["name"] == "WhatId" })
        #expect(what["polymorphicForeignKey"] == true)
        #expect(what["referenceTo"] == ["Account"])
        let owner = try #require(json["fields"]?.arrayValue?.first { $0["name"] == "OwnerId" })
        #expect(owner["polymorphicForeignKey"] == false)
    }

    @Test func soqlReadsWhatTypeAndName() throws {
        let org = try Self.org()
        let result = try query("SELECT Subject, What.Type, What.Name FROM Task ORDER BY Subject", org: org)
        #expect(result.records.map { $0["What"]?["Type"]?.stringValue } == ["Account", nil])
        #expect(result.records.map { $0["What"]?["Name"]?.stringValue } == ["Acme", nil])
        let filtered = try query("SELECT Id FROM Task WHERE What.Type = 'Account'", org: org)
        #expect(filtered.totalSize == 1)
        // A non-polymorphic lookup has no Type: Salesforce's INVALID_FIELD.
        #expect(queryError("SELECT Owner.Type FROM Task", org: org)?.errorCode == "INVALID_FIELD")
    }

    @Test func theFixtureFlagRoundTripsAndIsCheckedOnLoad() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("poly-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.org(withLogins: false).save(to: dir)
        let text = try String(contentsOf: dir.appendingPathComponent("schema/Task.json"), encoding: .utf8)
        #expect(text.contains("\"polymorphic\""))
        let loaded = try Org.load(directory: dir)
        let field = try #require(loaded.schema(named: "Task")?.field(named: "WhatId"))
        #expect(field.isPolymorphic && field.referenceTo == ["Account"])
        // The flag on a field that is not a reference is a fixture error naming the field.
        let bad = text.replacingOccurrences(
            of: "\"name\" : \"Subject\"", with: "\"name\" : \"Subject\", \"polymorphic\" : true"
        )
        .replacingOccurrences(of: "\"name\":\"Subject\"", with: "\"name\":\"Subject\",\"polymorphic\":true")
        try bad.write(to: dir.appendingPathComponent("schema/Task.json"), atomically: true, encoding: .utf8)
        #expect(bad != text)
        #expect(throws: FixtureError.self) { try Org.load(directory: dir) }
    }
}
