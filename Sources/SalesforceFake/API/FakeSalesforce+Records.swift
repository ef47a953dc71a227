import Foundation

extension FakeSalesforce {
    /// `GET /sobjects/{Type}/{Id}[?fields=A,B]`: every field, or the listed ones, `attributes` first.
    func readRecord(type: String, id: String, fields: String?, version: String, outcome: inout Outcome) -> SFResponse {
        guard let schema = org.schema(named: type) else { return Self.unsupportedType(type) }
        let record: SObjectRecord
        do { record = try org.record(type: schema.name, id: id) } catch { return Self.response(for: error) }
        outcome.rows = 1
        guard let fields, !fields.isEmpty else { return .json(200, record.json(apiVersion: version)) }
        var pairs: [(String, JSONValue)] = [("attributes", record.attributes(apiVersion: version))]
        for name in fields.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !name.isEmpty {
            guard let position = schema.layout.position(of: name) else {
                return .error(
                    400, "INVALID_FIELD",
                    "No such column '\(name)' on entity '\(schema.name)'. If you are attempting to use a custom field, be sure to append the '__c' after the custom field name. Please reference your WSDL or the describe call for the appropriate names."
                )
            }
            pairs.append((schema.layout.names[position], record.values[position]))
        }
        return .json(200, .object(pairs))
    }

    /// `POST /sobjects/{Type}`: 201 `{"id","success":true,"errors":[]}`. Like Salesforce, a record
    /// created without `OwnerId` is owned by the session's user (when that user is a User record),
    /// who is also its `CreatedById` and `LastModifiedById`.
    func create(type: String, body: [UInt8], session: SFSession) -> SFResponse {
        guard let schema = org.schema(named: type) else { return Self.unsupportedType(type) }
        var fields: [(String, JSONValue)]
        switch Self.recordFields(body) {
        case .success(let f): fields = f
        case .failure(let failure): return failure.response
        }
        let user = org.record(id: session.userId) != nil ? session.userId : nil
        if schema.field(named: "OwnerId") != nil, !fields.contains(where: { $0.0.lowercased() == "ownerid" }), let user
        {
            fields.append(("OwnerId", .string(user)))
        }
        do {
            let id = try org.insert(type: schema.name, fields: fields, user: user)
            return .json(201, .object([("id", .string(id)), ("success", .bool(true)), ("errors", .array([]))]))
        } catch {
            return Self.response(for: error)
        }
    }

    /// `PATCH /sobjects/{Type}/{Id}`: 204; the session's user becomes `LastModifiedById`.
    func update(type: String, id: String, body: [UInt8], session: SFSession) -> SFResponse {
        guard let schema = org.schema(named: type) else { return Self.unsupportedType(type) }
        let fields: [(String, JSONValue)]
        switch Self.recordFields(body) {
        case .success(let f): fields = f
        case .failure(let failure): return failure.response
        }
        do {
            try org.update(
                type: schema.name, id: id, fields: fields,
                user: org.record(id: session.userId) != nil ? session.userId : nil)
            return .noContent
        } catch {
            return Self.response(for: error)
        }
    }

    /// `DELETE /sobjects/{Type}/{Id}`: 204; the record stays visible to `queryAll`.
    func delete(type: String, id: String) -> SFResponse {
        guard let schema = org.schema(named: type) else { return Self.unsupportedType(type) }
        do {
            try org.delete(type: schema.name, id: id)
            return .noContent
        } catch {
            return Self.response(for: error)
        }
    }

    /// The fields of a create/update body: a JSON object; an `attributes` key is ignored.
    static func recordFields(_ body: [UInt8]) -> Result<[(String, JSONValue)], ResponseError> {
        let value: JSONValue
        do { value = try JSONValue.parse(body) } catch {
            return .failure(
                ResponseError(.error(400, "JSON_PARSER_ERROR", "Unexpected character or end of input: \(error)")))
        }
        guard case .object(let pairs) = value else {
            return .failure(
                ResponseError(
                    .error(400, "JSON_PARSER_ERROR", "Cannot deserialize instance of SObject from a non-object value")))
        }
        return .success(pairs.filter { $0.0 != "attributes" })
    }
}

/// A ready response carried through `Result` (an `Error` wrapper).
struct ResponseError: Error {
    var response: SFResponse
    init(_ response: SFResponse) { self.response = response }
}
