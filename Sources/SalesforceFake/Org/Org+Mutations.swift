extension Org {
    /// Creates a record and returns its new 18-character id (key prefix + deterministic counter).
    /// Fields are matched case-insensitively; derived fields are computed; `Id`, calculated and
    /// non-createable fields are refused. The system fields are filled as Salesforce fills them:
    /// `CreatedById` and `LastModifiedById` with `user` (the session's user; default the org's
    /// default owner), `CreatedDate`, `LastModifiedDate` and `SystemModstamp` with the org's now.
    @discardableResult
    public func insert(type: String, fields: [(String, JSONValue)], user: String? = nil) throws(SalesforceError)
        -> String
    {
        guard let t = schemaIndexByName[type.lowercased()] else { throw .unsupportedType(type) }
        let schema = schemas[t]
        var values = [JSONValue](repeating: .null, count: schema.fields.count)
        var given = Set<Int>()
        for (name, value) in fields {
            guard let position = schema.layout.position(of: name) else {
                throw .invalidField("No such column '\(name)' on sobject of type \(schema.name)")
            }
            let field = schema.fields[position]
            guard field.createable, !field.calculated else {
                throw .invalidFieldForInsertUpdate(
                    "Unable to create/update fields: \(field.name). Please check the security settings of this field and verify that it is read/write for your profile or permission set."
                )
            }
            values[position] = try FieldCoercion.coerce(value, for: field, object: schema.name, org: self)
            given.insert(position)
        }
        if let owner = schema.layout.position(of: "OwnerId"), values[owner].isNull, let user = defaultOwnerId {
            values[owner] = .string(user)  // Salesforce makes the calling user the owner
        }
        try Org.applyDefaults(schema: schema, values: &values, now: settings.now, user: user ?? defaultOwnerId)
        let missing = schema.fields.enumerated().filter { i, f in
            !f.nillable && f.createable && !f.calculated && f.type != .boolean && values[i].isNull
        }.map(\.element.name)
        guard missing.isEmpty else { throw .requiredFieldMissing(missing) }
        return state.withLock { s in
            var counter = s.tables[t].nextIdCounter
            var id = SalesforceId.make(prefix: schema.keyPrefix, counter: counter)
            while s.tables[t].rowById[id] != nil {
                counter += 1
                id = SalesforceId.make(prefix: schema.keyPrefix, counter: counter)
            }
            s.tables[t].nextIdCounter = counter + 1
            values[0] = .string(id)
            s.tables[t].append(SObjectRecord(type: schema.name, id: id, values: values, layout: schema.layout))
            return id
        }
    }

    /// The owner of records created without `OwnerId`: the first login principal's user, else the
    /// first active User.
    var defaultOwnerId: String? {
        credentials.first?.userId
            ?? records(of: "User").first { $0["IsActive"]?.boolValue ?? true }?.id
    }

    /// Changes fields of a live record (PATCH); derived fields are recomputed, and the system
    /// fields stamped: `LastModifiedById` is `user` (default the org's default owner),
    /// `LastModifiedDate` and `SystemModstamp` the org's now.
    public func update(type: String, id: String, fields: [(String, JSONValue)], user: String? = nil)
        throws(SalesforceError)
    {
        let current = try record(type: type, id: id)
        let schema = schema(named: type)!
        var changes: [(Int, JSONValue)] = []
        for (name, value) in fields {
            guard let position = schema.layout.position(of: name) else {
                throw .invalidField("No such column '\(name)' on sobject of type \(schema.name)")
            }
            let field = schema.fields[position]
            guard field.updateable, !field.calculated else {
                throw .invalidFieldForInsertUpdate(
                    "Unable to create/update fields: \(field.name). Please check the security settings of this field and verify that it is read/write for your profile or permission set."
                )
            }
            let coerced = try FieldCoercion.coerce(value, for: field, object: schema.name, org: self)
            if coerced.isNull && !field.nillable && field.type != .boolean {
                throw .requiredFieldMissing([field.name])
            }
            changes.append((position, coerced))
        }
        let now = JSONValue.string(CivilTime.formatDateTime(Int(settings.now.timeIntervalSince1970 * 1000)))
        for name in ["LastModifiedDate", "SystemModstamp"] {
            if let p = schema.layout.position(of: name) { changes.append((p, now)) }
        }
        if let p = schema.layout.position(of: "LastModifiedById"), let by = user ?? defaultOwnerId {
            changes.append((p, .string(by)))
        }
        try change(current) { values in
            for (position, value) in changes { values[position] = value }
            Org.applyDerived(schema: schema, values: &values)
        }
    }

    /// Soft-deletes a live record: it stays visible to `queryAll` with `IsDeleted = true`.
    public func delete(type: String, id: String) throws(SalesforceError) {
        let current = try record(type: type, id: id)
        try change(current) { values in values[1] = .bool(true) }  // IsDeleted is always second
    }

    /// Applies `edit` to the row's current values under the lock, so concurrent writes to one
    /// record each keep their own fields (no lost update from a stale read).
    private func change(_ current: SObjectRecord, _ edit: (inout [JSONValue]) -> Void) throws(SalesforceError) {
        let t = schemaIndexByName[current.type.lowercased()]!
        try state.withLock { (s: inout OrgState) throws(SalesforceError) in
            guard let row = s.tables[t].rowById[current.id] else { throw .notFound() }
            var record = s.tables[t].rows[row]
            if record.isDeleted { throw .entityIsDeleted() }
            edit(&record.values)
            s.tables[t].replace(row: row, with: record)
        }
    }

    /// Appends an already-validated record (fixture loading and the generator), keeping its id.
    func appendValidated(type t: Int, id: String, values: [JSONValue]) {
        let schema = schemas[t]
        state.withLock { s in
            s.tables[t].append(SObjectRecord(type: schema.name, id: id, values: values, layout: schema.layout))
        }
    }

    /// Fills `IsDeleted`, `CreatedDate` / `LastModifiedDate` / `SystemModstamp` (the frozen
    /// now), `CreatedById` / `LastModifiedById` (`user`) and derived fields, where not given.
    static func applyDefaults(schema: ObjectSchema, values: inout [JSONValue], now: Date, user: String? = nil)
        throws(SalesforceError)
    {
        for (i, field) in schema.fields.enumerated() where values[i].isNull {
            if field.type == .boolean { values[i] = .bool(false) }
            if field.name == "CreatedDate" || field.name == "LastModifiedDate" || field.name == "SystemModstamp" {
                values[i] = .string(CivilTime.formatDateTime(Int(now.timeIntervalSince1970 * 1000)))
            }
            if field.name == "CreatedById" || field.name == "LastModifiedById", let user { values[i] = .string(user) }
        }
        applyDerived(schema: schema, values: &values)
    }

    /// Derived fields: `Name` = First + Last on Contact, Lead and User; `Task.IsClosed` from Status.
    static func applyDerived(schema: ObjectSchema, values: inout [JSONValue]) {
        let layout = schema.layout
        switch schema.name {
        case "Contact", "Lead", "User":
            guard let n = layout.position(of: "Name"), schema.fields[n].calculated else { return }
            let parts = ["FirstName", "LastName"].compactMap { name -> String? in
                guard let p = layout.position(of: name), let s = values[p].stringValue, !s.isEmpty else { return nil }
                return s
            }
            values[n] = parts.isEmpty ? .null : .string(parts.joined(separator: " "))
        case "Task":
            guard let c = layout.position(of: "IsClosed"), let s = layout.position(of: "Status") else { return }
            values[c] = .bool(Org.closedTaskStatuses.contains(values[s].stringValue ?? ""))
        default:
            return
        }
    }

    /// Task statuses that count as closed (Salesforce's default `Completed`).
    static let closedTaskStatuses: Set<String> = ["Completed"]
}

import Foundation
