import Foundation

extension Org {
    /// Loads a fixture directory such as `Fixtures/salesforce/small`:
    /// `org.json` (settings), `schema/<Object>.json` (one per object, loaded alphabetically),
    /// `records/<Object>.jsonl` (JSON Lines, optional per object) and `credentials.json`.
    /// Every problem is a `FixtureError` naming the file, the line and the field.
    public static func load(directory: URL) throws(FixtureError) -> Org {
        let settings = try FixtureReader.settings(directory.appendingPathComponent("org.json"))
        let schemaDir = directory.appendingPathComponent("schema")
        let schemaFiles = try FixtureReader.listFiles(schemaDir, ext: "json")
        var schemas: [ObjectSchema] = []
        for file in schemaFiles {
            let schema = try FixtureReader.schema(file)
            guard schema.name + ".json" == file.lastPathComponent else {
                throw FixtureError(
                    file: file.path, line: nil, message: "object name '\(schema.name)' does not match the file name")
            }
            if let clash = schemas.first(where: { $0.keyPrefix == schema.keyPrefix }) {
                throw FixtureError(
                    file: file.path, line: nil, message: "keyPrefix '\(schema.keyPrefix)' already used by \(clash.name)"
                )
            }
            schemas.append(schema)
        }
        try FixtureReader.checkRelationships(schemas, directory: schemaDir)
        let credentialsFile = directory.appendingPathComponent("credentials.json")
        let rawCredentials = try FixtureReader.credentialRows(credentialsFile)
        let org = Org(settings: settings, schemas: schemas, credentials: [])
        let recordsDir = directory.appendingPathComponent("records")
        var pending: [(file: URL, line: Int, id: String, field: FieldSchema, value: String)] = []
        let auditUser = FixtureReader.firstRecordId(recordsDir.appendingPathComponent("User.jsonl"))
        for (t, schema) in schemas.enumerated() {
            let file = recordsDir.appendingPathComponent(schema.name + ".jsonl")
            guard FileManager.default.fileExists(atPath: file.path) else { continue }
            try FixtureReader.records(file, schema: schema, org: org, type: t, auditUser: auditUser) {
                line, id, field, value in
                pending.append((file, line, id, field, value))
            }
        }
        let unknownRecords = try FixtureReader.listFiles(recordsDir, ext: "jsonl", optional: true)
            .filter { file in !schemas.contains { $0.name + ".jsonl" == file.lastPathComponent } }
        if let stray = unknownRecords.first {
            throw FixtureError(
                file: stray.path, line: nil,
                message:
                    "no schema for these records (expected schema/\(stray.deletingPathExtension().lastPathComponent).json)"
            )
        }
        for ref in pending {
            guard let target = org.record(id: ref.value), ref.field.referenceTo.contains(target.type) else {
                throw FixtureError(
                    file: ref.file.path, line: ref.line,
                    message:
                        "field \(ref.field.name) of record \(ref.id): no \(ref.field.referenceTo.joined(separator: "/")) record with id '\(ref.value)'"
                )
            }
        }
        let credentials = try FixtureReader.credentials(rawCredentials, file: credentialsFile, org: org)
        return org.withCredentials(credentials)
    }

    /// A copy of this org with other login principals (records are shared copy-on-write).
    func withCredentials(_ credentials: [Credential]) -> Org {
        let copy = Org(settings: settings, schemas: schemas, credentials: credentials)
        let current = snapshot()
        copy.state.withLock { $0 = current }
        return copy
    }
}

/// A bad fixture file: which file, which line (JSON Lines) and what is wrong.
public struct FixtureError: Error, Hashable, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int?
    public var message: String

    public init(file: String, line: Int?, message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    public var description: String { line.map { "\(file):\($0): \(message)" } ?? "\(file): \(message)" }
}
