import Foundation

extension FixtureReader {
    /// Loads one JSON Lines file into `org`. References are reported through `reference` and
    /// checked once every file is loaded (records may point forward). A record without
    /// `CreatedById` / `LastModifiedById` gets its `OwnerId`, else `auditUser`.
    static func records(
        _ file: URL, schema: ObjectSchema, org: Org, type t: Int, auditUser: String? = nil,
        reference: (_ line: Int, _ id: String, _ field: FieldSchema, _ value: String) -> Void
    ) throws(FixtureError) {
        let bytes = try read(file)
        var lineNumber = 0
        var counter = 1
        for lineBytes in bytes.split(separator: 0x0A, omittingEmptySubsequences: false) {
            lineNumber += 1
            if lineBytes.allSatisfy({ $0 == 0x20 || $0 == 0x0D || $0 == 0x09 }) { continue }
            let json: JSONValue
            do {
                json = try JSONValue.parse(Array(lineBytes))
            } catch {
                throw FixtureError(file: file.path, line: lineNumber, message: "invalid JSON: \(error.description)")
            }
            guard let pairs = json.objectValue else {
                throw FixtureError(file: file.path, line: lineNumber, message: "expected one JSON object per line")
            }
            var values = [JSONValue](repeating: .null, count: schema.fields.count)
            var id: String?
            for (key, value) in pairs {
                guard let position = schema.layout.position(of: key) else {
                    throw FixtureError(
                        file: file.path, line: lineNumber, message: "field \(key): no such field on \(schema.name)")
                }
                let field = schema.fields[position]
                if field.calculated {
                    throw FixtureError(
                        file: file.path, line: lineNumber,
                        message: "field \(field.name): derived field, computed by the org (remove it)")
                }
                if position == 0 {
                    guard let text = value.stringValue, let id18 = SalesforceId.to18(text) else {
                        throw FixtureError(
                            file: file.path, line: lineNumber,
                            message: "field Id: '\(value.serialized())' is not a 15/18-character id")
                    }
                    guard id18.hasPrefix(schema.keyPrefix) else {
                        throw FixtureError(
                            file: file.path, line: lineNumber,
                            message:
                                "field Id: '\(text)' does not start with \(schema.name)'s key prefix \(schema.keyPrefix)"
                        )
                    }
                    id = id18
                    continue
                }
                do {
                    values[position] = try FieldCoercion.coerce(value, for: field, object: schema.name, org: nil)
                } catch {
                    throw FixtureError(
                        file: file.path, line: lineNumber, message: "field \(field.name): \(error.message)")
                }
            }
            let recordId: String
            if let id {
                recordId = id
            } else {
                while org.record(id: SalesforceId.make(prefix: schema.keyPrefix, counter: counter)) != nil {
                    counter += 1
                }
                recordId = SalesforceId.make(prefix: schema.keyPrefix, counter: counter)
                counter += 1
            }
            if org.record(id: recordId) != nil {
                throw FixtureError(file: file.path, line: lineNumber, message: "field Id: duplicate id '\(recordId)'")
            }
            do {
                let owner = schema.layout.position(of: "OwnerId").flatMap { values[$0].stringValue }
                try Org.applyDefaults(schema: schema, values: &values, now: org.settings.now, user: owner ?? auditUser)
            } catch {
                throw FixtureError(file: file.path, line: lineNumber, message: error.message)
            }
            for (i, field) in schema.fields.enumerated() where i > 0 {
                if values[i].isNull && !field.nillable && !field.calculated {
                    throw FixtureError(
                        file: file.path, line: lineNumber, message: "field \(field.name): required on \(schema.name)")
                }
                if field.type == .reference, let target = values[i].stringValue {
                    reference(lineNumber, recordId, field, target)
                }
            }
            values[0] = .string(recordId)
            org.appendValidated(type: t, id: recordId, values: values)
        }
    }

    static func credentialRows(_ file: URL) throws(FixtureError) -> [JSONValue] {
        guard FileManager.default.fileExists(atPath: file.path) else { return [] }
        guard let rows = try parse(file).arrayValue else {
            throw FixtureError(
                file: file.path, line: nil, message: "expected an array of {username, password, securityToken, userId?}"
            )
        }
        return rows
    }

    /// Resolves each principal's user: an explicit `userId`, else the User whose Username matches.
    static func credentials(_ rows: [JSONValue], file: URL, org: Org) throws(FixtureError) -> [Credential] {
        var result: [Credential] = []
        for (i, row) in rows.enumerated() {
            guard let pairs = row.objectValue else {
                throw FixtureError(file: file.path, line: nil, message: "[\(i)]: expected an object")
            }
            try checkKeys(
                pairs, allowed: ["username", "password", "securityToken", "userId"], file: file, line: nil,
                what: "[\(i)]")
            guard let username = row["username"]?.stringValue, let password = row["password"]?.stringValue else {
                throw FixtureError(
                    file: file.path, line: nil, message: "[\(i)]: username and password are required strings")
            }
            let token = row["securityToken"]?.stringValue ?? ""
            var userId: String?
            if let given = row["userId"]?.stringValue {
                guard let id18 = SalesforceId.to18(given), org.record(id: id18)?.type == "User" else {
                    throw FixtureError(
                        file: file.path, line: nil, message: "[\(i)] (\(username)).userId: no User with id '\(given)'")
                }
                userId = id18
            } else {
                userId =
                    org.records(of: "User").first {
                        $0["Username"]?.stringValue?.lowercased() == username.lowercased()
                    }?.id
            }
            guard let userId else {
                throw FixtureError(
                    file: file.path, line: nil,
                    message: "[\(i)] (\(username)): no User record with this Username and no userId")
            }
            if result.contains(where: { $0.username.lowercased() == username.lowercased() }) {
                throw FixtureError(file: file.path, line: nil, message: "[\(i)]: duplicate username '\(username)'")
            }
            result.append(Credential(username: username, password: password, securityToken: token, userId: userId))
        }
        return result
    }

    /// The `Id` of the first record in a JSON Lines file (the fixture's first User: who the
    /// system fields name where a record has no owner), or nil.
    static func firstRecordId(_ file: URL) -> String? {
        guard let bytes = try? Data(contentsOf: file) else { return nil }
        for line in bytes.split(separator: 0x0A) {
            guard let json = try? JSONValue.parse(Array(line)), let pairs = json.objectValue else { continue }
            return pairs.first { $0.0 == "Id" }?.1.stringValue.flatMap(SalesforceId.to18)
        }
        return nil
    }
}
