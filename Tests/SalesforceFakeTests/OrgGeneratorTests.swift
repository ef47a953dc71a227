import Foundation
import Testing
@testable import SalesforceFake

@Suite struct OrgGeneratorTests {
    static let template = FixtureSupport.shared

    @Test func sameSeedSameOrg() throws {
        let a = try OrgGenerator.generate(seed: 42, accounts: 300, template: Self.template)
        let b = try OrgGenerator.generate(seed: 42, accounts: 300, template: Self.template)
        for object in ["Account", "Contact", "Lead", "Task", "User"] {
            #expect(a.records(of: object) == b.records(of: object), "\(object) differs for seed 42")
            #expect(a.records(of: object).map { $0.values } == b.records(of: object).map { $0.values })
        }
        let c = try OrgGenerator.generate(seed: 43, accounts: 300, template: Self.template)
        #expect(a.records(of: "Account").map(\.values) != c.records(of: "Account").map(\.values))
    }

    @Test func sizesAndReferences() throws {
        let org = try OrgGenerator.generate(seed: 7, accounts: 1000, template: Self.template)
        #expect(org.count(of: "Account") == 1000)
        #expect(org.count(of: "User") == 4 + 8)
        #expect(org.count(of: "Lead") == 500)
        #expect(org.count(of: "Task") == 500)
        #expect(org.count(of: "Contact") > 1000 && org.count(of: "Contact") < 3000)
        #expect(org.credentials == Self.template.credentials)
        // Every reference resolves and every id is a valid 18-character id with the right prefix.
        for contact in org.records(of: "Contact") {
            #expect(
                contact.id.count == 18 && SalesforceId.to18(contact.id) == contact.id && contact.id.hasPrefix("003"))
            #expect(org.record(id: contact["AccountId"]!.stringValue!)?.type == "Account")
        }
        #expect(org.records(of: "Contact").allSatisfy { $0["Name"]?.stringValue?.contains(" ") == true })
        let ids = org.records(of: "Account").map(\.id)
        #expect(Set(ids).count == ids.count)
        // Writes still get fresh ids.
        let id = try org.insert(type: "Account", fields: [("Name", "Fresh")])
        #expect(!ids.contains(id))
    }

    /// The indexed path and a plain scan must agree, also after writes that move rows between keys.
    @Test func indexedQueriesMatchAScan() throws {
        let org = try OrgGenerator.generate(seed: 3, accounts: 2000, template: Self.template)
        let queries = SOQLBenchmark.filteredAccountQueries(org: org, count: 40, seed: 11)
        func scan(_ owner: String, _ industry: String, _ state: String) -> [String] {
            org.records(of: "Account").filter { r in
                !r.isDeleted && !(r["Type"]?.stringValue?.lowercased().hasPrefix("customer") ?? false)
                    && r["OwnerId"]?.stringValue == owner
                    && [industry.lowercased(), "finance"].contains(r["Industry"]?.stringValue?.lowercased() ?? "")
                    && r["BillingState"]?.stringValue?.lowercased() == state.lowercased()
            }.map(\.id)
        }
        func check() throws {
            for q in queries {
                let owner = String(q.split(separator: "'")[3]), industry = String(q.split(separator: "'")[5])
                let state = String(q.split(separator: "'")[9])
                let got = try query(q, org: org).strings("Id").compactMap { $0 }
                #expect(got == scan(owner, industry, state), "query: \(q)")
            }
        }
        try check()
        // Move some rows across index keys, add and delete some, and check again.
        let accounts = org.records(of: "Account")
        for (i, a) in accounts.prefix(200).enumerated() {
            switch i % 4 {
            case 0:
                try org.update(type: "Account", id: a.id, fields: [("BillingState", "CA"), ("Industry", "Finance")])
            case 1: try org.delete(type: "Account", id: a.id)
            case 2:
                try org.insert(
                    type: "Account",
                    fields: [
                        ("Name", .string("New \(i)")), ("OwnerId", a["OwnerId"]!), ("Industry", "Finance"),
                        ("BillingState", "ca"),
                    ])
            default: try org.update(type: "Account", id: a.id, fields: [("OwnerId", accounts[i + 500]["OwnerId"]!)])
            }
        }
        try check()
    }

    @Test func theWhalerQueriesRunOnAGeneratedOrg() throws {
        let org = try OrgGenerator.generate(seed: 5, accounts: 1000, template: Self.template)
        let industries = try query("Select Industry from Account group by Industry", org: org)
        #expect(
            industries.strings("Industry") == [
                "Education", "Energy", "Finance", "Healthcare", "Manufacturing", "Media", "Retail", "Technology",
            ])
        let owners = try query("Select Owner.Id, Owner.Name from Account group by Owner.Id, Owner.Name", org: org)
        #expect(owners.totalSize == 3 + 8)  // the template's active users plus the generated ones
        let account = org.records(of: "Account")[17]
        let contacts = try query(
            "SELECT id, accountId, firstName, lastName, title, phone, email from Contact WHERE AccountId = '\(account.id)'",
            org: org)
        #expect(
            contacts.totalSize == org.records(of: "Contact").filter { $0["AccountId"]?.stringValue == account.id }.count
        )
        let acme = try query("SELECT id, company from Lead WHERE Company LIKE '%Acme%'", org: org)
        #expect(acme.totalSize == org.records(of: "Lead").filter { $0["Company"]!.stringValue!.contains("Acme") }.count)
    }
}

@Suite struct OrgSaveTests {
    /// save → load gives back the same settings, schemas, records and credentials.
    @Test func savedOrgLoadsBackIdentical() throws {
        let org = try OrgGenerator.generate(seed: 21, accounts: 200, template: FixtureSupport.shared)
        try org.delete(type: "Account", id: org.records(of: "Account")[3].id)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("soql-save-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        try org.save(to: dir)
        let loaded = try Org.load(directory: dir)
        #expect(loaded.settings == org.settings)
        #expect(loaded.schemas == org.schemas)
        #expect(loaded.credentials == org.credentials)
        for schema in org.schemas {
            #expect(
                loaded.records(of: schema.name).map(\.values) == org.records(of: schema.name).map(\.values),
                "\(schema.name)")
        }
        #expect(try query("SELECT COUNT() FROM Account", org: loaded).totalSize == 199)
    }
}

@Suite struct SOQLIdLookupTests {
    /// On big tables `Id = ...` / `Id IN (...)` go through the id map; answers match a scan and
    /// no equality index over every id is built.
    @Test func idConditionsUseTheIdMap() throws {
        let org = try OrgGenerator.generate(seed: 17, accounts: 1500, template: FixtureSupport.shared)
        let ids = org.records(of: "Account").map(\.id)
        let picked = [ids[1400], ids[3], String(ids[700].prefix(15))]
        let r = try query(
            "SELECT Id FROM Account WHERE Id IN ('\(picked.joined(separator: "','"))') AND Name != null", org: org)
        #expect(r.strings("Id") == [ids[3], ids[700], ids[1400]])
        #expect(
            try query("SELECT Id FROM Account WHERE Id = '\(ids[9])' OR Id = '\(ids[8])'", org: org).strings("Id") == [
                ids[8], ids[9],
            ])
        #expect(try query("SELECT Id FROM Account WHERE Id = '001000000000000AAA'", org: org).totalSize == 0)
        #expect(org.state.withLock { $0.tables[org.schemaIndexByName["account"]!].indexes[0] } == nil)
    }
}
