import Foundation
import SalesforceFake
import Testing

/// The system fields Salesforce keeps on every record (`CreatedById`, `CreatedDate`,
/// `LastModifiedById`, `LastModifiedDate`, `SystemModstamp`): non-nillable and read-only in the
/// small org's describe, as in a real org's, and filled by the fake on create and update with
/// the session's user and the org's now; fixture and generated rows have them too.
@Suite struct AuditFieldTests {
    typealias F = FixtureSupport
    let base = "/services/data/v59.0/sobjects"
    static let audit = ["CreatedById", "CreatedDate", "LastModifiedById", "LastModifiedDate", "SystemModstamp"]

    func session(_ fake: FakeSalesforce, _ username: String, _ passwordAndToken: String) throws -> String {
        let response = fake.handle(APITestOrg.passwordGrant(username: username, password: passwordAndToken))
        return try #require(
            response.json["access_token"]?.stringValue, "login \(username): \(response.status) \(response.bodyText)")
    }

    @Test func createAndUpdateStampTheSessionsUserAndTheDates() throws {
        let fake = FakeSalesforce(org: try F.smallOrg(), config: FakeSalesforceConfig(), connectedApps: APITestOrg.apps)
        // Sam, not the org's first user (the default owner), so the stamp is the session's user.
        let sam = try session(fake, "sam@whaler.test", "sampass1SAMTOKEN")
        let admin = try session(fake, "admin@whaler.test", "whaler123TOKEN123")
        let created = fake.handle(
            APITestOrg.send("POST", "\(base)/Account/", token: sam, json: #"{"Name": "Audit Co"}"#))
        #expect(created.status == 201, "\(created.bodyText)")
        let id = try #require(created.json["id"]?.stringValue)
        let now = "2024-06-14T17:00:00.000+0000"  // the small org's frozen now (org.json)
        let read = fake.handle(APITestOrg.get("\(base)/Account/\(id)", token: sam)).json
        #expect(
            read["CreatedById"] == .string(F.user(2)) && read["LastModifiedById"] == .string(F.user(2))
                && read["OwnerId"] == .string(F.user(2)))
        #expect(
            read["CreatedDate"] == .string(now) && read["LastModifiedDate"] == .string(now)
                && read["SystemModstamp"] == .string(now))

        let patched = fake.handle(
            APITestOrg.send("PATCH", "\(base)/Account/\(id)", token: admin, json: #"{"Name": "Audit Co 2"}"#))
        #expect(patched.status == 204, "\(patched.bodyText)")
        let after = fake.handle(APITestOrg.get("\(base)/Account/\(id)", token: admin)).json
        #expect(after["CreatedById"] == .string(F.user(2)) && after["LastModifiedById"] == .string(F.user(1)))

        // Read-only: a client cannot set them.
        let forged = fake.handle(
            APITestOrg.send(
                "POST", "\(base)/Account/", token: sam,
                json: #"{"Name": "Forged", "CreatedById": "0055g0000UsR001AQC"}"#))
        #expect(
            forged.status == 400 && forged.bodyText.contains("INVALID_FIELD_FOR_INSERT_UPDATE"), "\(forged.bodyText)")
    }

    @Test func describeMarksThemNonNillableAndReadOnly() throws {
        let fake = FakeSalesforce(org: try F.smallOrg(), config: FakeSalesforceConfig(), connectedApps: APITestOrg.apps)
        let token = try session(fake, "admin@whaler.test", "whaler123TOKEN123")
        for object in ["Account", "Contact", "Lead", "Opportunity", "Task", "User"] {
            let fields =
                fake.handle(APITestOrg.get("\(base)/\(object)/describe", token: token)).json["fields"]?.arrayValue ?? []
            for name in Self.audit {
                let field = try #require(
                    fields.first { $0["name"] == .string(name) }, "\(object).\(name) missing from describe")
                #expect(
                    field["nillable"] == false && field["createable"] == false && field["updateable"] == false,
                    "\(object).\(name)")
                #expect(field["defaultedOnCreate"] == true, "\(object).\(name)")
            }
        }
    }

    @Test func fixtureAndGeneratedRowsHaveThem() throws {
        let org = F.shared
        for id in [F.account(1), F.contact(25), F.task(1), F.user(3)] {
            let record = try #require(org.record(id: id))
            for name in Self.audit { #expect(record[name]?.stringValue != nil, "\(id).\(name)") }
        }
        // An owned row names its owner; a User row the fixture's first user.
        #expect(org.record(id: F.account(1))?["CreatedById"] == org.record(id: F.account(1))?["OwnerId"])
        #expect(org.record(id: F.user(3))?["CreatedById"] == .string(F.user(1)))
        let grown = try OrgGenerator.generate(seed: 3, accounts: 50, templateDirectory: F.orgDirectory("small"))
        for record in grown.records(of: "Account").suffix(5) {
            for name in Self.audit { #expect(record[name]?.stringValue != nil, "generated \(record.id).\(name)") }
        }
    }
}
