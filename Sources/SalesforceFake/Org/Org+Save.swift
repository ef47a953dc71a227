import Foundation

extension Org {
    /// Writes the org in the fixture layout `Org.load` reads (`org.json`, `schema/`, `records/`,
    /// `credentials.json`), e.g. to keep a generated 100k-account org on disk. Derived fields are
    /// left out (they are recomputed on load); deleted rows keep `IsDeleted: true`.
    public func save(to directory: URL) throws {
        let fm = FileManager.default
        try fm.createDirectory(at: directory.appendingPathComponent("schema"), withIntermediateDirectories: true)
        try fm.createDirectory(at: directory.appendingPathComponent("records"), withIntermediateDirectories: true)
        let s = settings
        let orgJSON: JSONValue = .object([
            ("orgId", .string(s.orgId)), ("name", .string(s.name)),
            ("now", .string(CivilTime.formatDateTime(Int((s.now.timeIntervalSince1970 * 1000).rounded())))),
            ("timeZone", .string(s.timeZone)), ("apiVersionMin", .string(s.apiVersionMin)),
            ("apiVersionMax", .string(s.apiVersionMax)), ("defaultPageSize", .int(s.defaultPageSize)),
            ("maxOffset", .int(s.maxOffset)), ("instanceName", .string(s.instanceName)),
        ])
        try Data(orgJSON.serializedBytes()).write(to: directory.appendingPathComponent("org.json"))
        for schema in schemas {
            try Data(Org.schemaJSON(schema).serializedBytes()).write(
                to: directory.appendingPathComponent("schema/\(schema.name).json"))
            var lines: [UInt8] = []
            for record in records(of: schema.name) {
                var pairs: [(String, JSONValue)] = []
                for (field, value) in zip(schema.fields, record.values) where !field.calculated && !value.isNull {
                    if field.name == "IsDeleted" && value == .bool(false) { continue }
                    pairs.append((field.name, value))
                }
                JSONValue.object(pairs).write(into: &lines)
                lines.append(0x0A)
            }
            try Data(lines).write(to: directory.appendingPathComponent("records/\(schema.name).jsonl"))
        }
        let creds: JSONValue = .array(
            credentials.map { c in
                .object([
                    ("username", .string(c.username)), ("password", .string(c.password)),
                    ("securityToken", .string(c.securityToken)), ("userId", .string(c.userId)),
                ])
            })
        try Data(creds.serializedBytes()).write(to: directory.appendingPathComponent("credentials.json"))
    }

    static func schemaJSON(_ schema: ObjectSchema) -> JSONValue {
        let fields: [JSONValue] = schema.fields.map { f in
            var pairs: [(String, JSONValue)] = [
                ("name", .string(f.name)), ("label", .string(f.label)), ("type", .string(f.type.rawValue)),
                ("nillable", .bool(f.nillable)), ("filterable", .bool(f.filterable)), ("sortable", .bool(f.sortable)),
                ("groupable", .bool(f.groupable)), ("createable", .bool(f.createable)),
                ("updateable", .bool(f.updateable)),
                ("custom", .bool(f.custom)), ("length", .int(f.length)), ("calculated", .bool(f.calculated)),
            ]
            if !f.referenceTo.isEmpty { pairs.append(("referenceTo", .array(f.referenceTo.map { .string($0) }))) }
            if f.declaredPolymorphic { pairs.append(("polymorphic", .bool(true))) }
            if let r = f.relationshipName { pairs.append(("relationshipName", .string(r))) }
            if !f.picklistValues.isEmpty {
                pairs.append(("picklistValues", .array(f.picklistValues.map { .string($0) })))
            }
            return .object(pairs)
        }
        let children: [JSONValue] = schema.childRelationships.map { c in
            .object([
                ("childSObject", .string(c.childSObject)), ("field", .string(c.field)),
                ("relationshipName", .string(c.relationshipName)),
            ])
        }
        return .object([
            ("name", .string(schema.name)), ("label", .string(schema.label)),
            ("labelPlural", .string(schema.labelPlural)),
            ("keyPrefix", .string(schema.keyPrefix)), ("fields", .array(fields)),
            ("childRelationships", .array(children)),
        ])
    }
}
