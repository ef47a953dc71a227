import Foundation
import Testing
@testable import SalesforceFake

/// Every fixture mistake names the file, the line (for JSON Lines) and the field.
@Suite struct OrgLoadErrorTests {
    /// A copy of the small org in a temporary directory, with `change` applied.
    func brokenOrg(_ change: (URL) throws -> Void) throws -> FixtureError? {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("soql-fixture-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: FixtureSupport.orgDirectory("small"), to: dir)
        defer { try? FileManager.default.removeItem(at: dir) }
        try change(dir)
        do {
            _ = try Org.load(directory: dir)
            Issue.record("expected a fixture error")
            return nil
        } catch {
            return FixtureError(
                file: error.file.replacingOccurrences(of: dir.path + "/", with: ""), line: error.line,
                message: error.message)
        }
    }

    func replaceLine(_ file: URL, _ line: Int, _ text: String) throws {
        var lines = try String(contentsOf: file, encoding: .utf8).components(separatedBy: "\n")
        lines[line - 1] = text
        try lines.joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
    }

    @Test func missingSettings() throws {
        let error = try brokenOrg { try FileManager.default.removeItem(at: $0.appendingPathComponent("org.json")) }
        #expect(error == FixtureError(file: "org.json", line: nil, message: "missing or unreadable file"))
    }

    @Test func badSettingsValues() throws {
        let error = try brokenOrg { dir in
            try #"{"orgId": "00D5g0000012345", "name": "x", "now": "yesterday"}"#.write(
                to: dir.appendingPathComponent("org.json"), atomically: true, encoding: .utf8)
        }
        #expect(error?.message == "field now: 'yesterday' is not an ISO 8601 datetime like 2024-06-14T17:00:00Z")
        let zone = try brokenOrg { dir in
            try #"{"orgId": "00D5g0000012345", "name": "x", "now": "2024-01-01T00:00:00Z", "timeZone": "Mars/Olympus"}"#
                .write(to: dir.appendingPathComponent("org.json"), atomically: true, encoding: .utf8)
        }
        #expect(zone?.message == "field timeZone: unknown time zone 'Mars/Olympus'")
        let key = try brokenOrg { dir in
            try #"{"orgId": "00D5g0000012345", "name": "x", "now": "2024-01-01T00:00:00Z", "pageSize": 5}"#.write(
                to: dir.appendingPathComponent("org.json"), atomically: true, encoding: .utf8)
        }
        #expect(key?.message.hasPrefix("org settings: unknown key 'pageSize'") == true)
    }

    @Test func invalidJSONLine() throws {
        let error = try brokenOrg {
            try replaceLine($0.appendingPathComponent("records/Account.jsonl"), 3, #"{"Name": "oops""#)
        }
        #expect(error?.file == "records/Account.jsonl")
        #expect(error?.line == 3)
        #expect(error?.message.hasPrefix("invalid JSON: ") == true)
    }

    @Test func unknownFieldInRecord() throws {
        let error = try brokenOrg {
            try replaceLine(
                $0.appendingPathComponent("records/Lead.jsonl"), 2,
                #"{"LastName": "x", "Company": "y", "Status": "Open - Not Contacted", "Colour": "red"}"#)
        }
        #expect(
            error == FixtureError(file: "records/Lead.jsonl", line: 2, message: "field Colour: no such field on Lead"))
    }

    @Test func badPicklistAndTypes() throws {
        let picklist = try brokenOrg {
            try replaceLine(
                $0.appendingPathComponent("records/Lead.jsonl"), 1,
                #"{"LastName": "x", "Company": "y", "Status": "Maybe"}"#)
        }
        #expect(
            picklist
                == FixtureError(
                    file: "records/Lead.jsonl", line: 1,
                    message: "field Status: Lead Status: bad value for restricted picklist field: Maybe"))
        let number = try brokenOrg {
            try replaceLine(
                $0.appendingPathComponent("records/Account.jsonl"), 1,
                #"{"Name": "x", "NumberOfEmployees": "ten", "OwnerId": "0055g0000UsR001"}"#)
        }
        #expect(number?.line == 1)
        #expect(number?.message.hasPrefix("field NumberOfEmployees: Cannot deserialize instance of int") == true)
        let required = try brokenOrg {
            try replaceLine(
                $0.appendingPathComponent("records/Lead.jsonl"), 4,
                #"{"LastName": "x", "Status": "Open - Not Contacted"}"#)
        }
        #expect(
            required == FixtureError(file: "records/Lead.jsonl", line: 4, message: "field Company: required on Lead"))
        let derived = try brokenOrg {
            try replaceLine($0.appendingPathComponent("records/Contact.jsonl"), 5, #"{"LastName": "x", "Name": "y"}"#)
        }
        #expect(
            derived
                == FixtureError(
                    file: "records/Contact.jsonl", line: 5,
                    message: "field Name: derived field, computed by the org (remove it)"))
    }

    @Test func danglingReferenceAndDuplicateId() throws {
        let dangling = try brokenOrg {
            try replaceLine(
                $0.appendingPathComponent("records/Contact.jsonl"), 2,
                #"{"Id": "0035g0000CoN002", "LastName": "x", "AccountId": "0015g0000AcC099", "OwnerId": "0055g0000UsR001"}"#
            )
        }
        #expect(dangling?.line == 2)
        #expect(
            dangling?.message
                == "field AccountId of record 0035g0000CoN002AQC: no Account record with id '0015g0000AcC099AQC'")
        let duplicate = try brokenOrg {
            try replaceLine(
                $0.appendingPathComponent("records/Task.jsonl"), 2,
                #"{"Id": "00T5g0000TsK001", "Status": "Completed", "Priority": "Low"}"#)
        }
        #expect(
            duplicate
                == FixtureError(
                    file: "records/Task.jsonl", line: 2,
                    message: "field Id: duplicate id '\(SalesforceId.to18("00T5g0000TsK001")!)'"))
        let prefix = try brokenOrg {
            try replaceLine(
                $0.appendingPathComponent("records/Task.jsonl"), 2,
                #"{"Id": "0015g0000TsK001", "Status": "Completed", "Priority": "Low"}"#)
        }
        #expect(prefix?.message == "field Id: '0015g0000TsK001' does not start with Task's key prefix 00T")
    }

    @Test func badSchema() throws {
        let type = try brokenOrg { dir in
            let file = dir.appendingPathComponent("schema/User.json")
            let text = try String(contentsOf: file, encoding: .utf8).replacingOccurrences(
                of: #""type": "boolean""#, with: #""type": "checkbox""#)
            try text.write(to: file, atomically: true, encoding: .utf8)
        }
        #expect(type?.file == "schema/User.json")
        #expect(type?.message.hasPrefix("fields[8] (IsActive).type: expected one of id, string") == true)
        let reference = try brokenOrg { dir in
            try FileManager.default.removeItem(at: dir.appendingPathComponent("schema/Opportunity.json"))
            try FileManager.default.removeItem(at: dir.appendingPathComponent("records/Opportunity.jsonl"))
        }
        #expect(reference?.message == "childRelationships Opportunities: no object 'Opportunity'")
        let stray = try brokenOrg { dir in
            try "{}\n".write(to: dir.appendingPathComponent("records/Widget.jsonl"), atomically: true, encoding: .utf8)
        }
        #expect(
            stray
                == FixtureError(
                    file: "records/Widget.jsonl", line: nil,
                    message: "no schema for these records (expected schema/Widget.json)"))
    }

    @Test func credentialsNeedAUser() throws {
        let error = try brokenOrg { dir in
            try #"[{"username": "ghost@whaler.test", "password": "x"}]"#.write(
                to: dir.appendingPathComponent("credentials.json"), atomically: true, encoding: .utf8)
        }
        #expect(
            error
                == FixtureError(
                    file: "credentials.json", line: nil,
                    message: "[0] (ghost@whaler.test): no User record with this Username and no userId"))
    }
}
