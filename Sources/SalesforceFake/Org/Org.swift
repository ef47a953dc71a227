import Foundation

/// An in-memory Salesforce org: settings, schemas, records and login principals. Safe to share
/// between request handlers: reads take a snapshot, writes go through a lock.
///
/// ```swift
/// let org = try Org.load(directory: fixtures.appendingPathComponent("small"))
/// let id = try org.insert(type: "account", fields: [("Name", "Whale Inc")])
/// let result = try SOQL.execute("SELECT Id, Name FROM Account", in: org, apiVersion: "59.0", includeDeleted: false)
/// ```
public final class Org: Sendable {
    public let settings: OrgSettings
    /// Schemas in a stable order (as loaded: alphabetical for fixture directories).
    public let schemas: [ObjectSchema]
    public let credentials: [Credential]
    let schemaIndexByName: [String: Int]
    let schemaIndexByPrefix: [String: Int]
    let state: Locked<OrgState>
    /// Parsed and resolved queries by their text (a small LRU; see
    /// docs/decisions/0004-soql-plan-cache-and-equality-indexes.md).
    let queryCache = Locked(QueryCache(capacity: 1024))

    public init(settings: OrgSettings, schemas: [ObjectSchema], credentials: [Credential] = []) {
        self.settings = settings
        self.schemas = schemas
        self.credentials = credentials
        var byName: [String: Int] = [:]
        var byPrefix: [String: Int] = [:]
        for (i, schema) in schemas.enumerated() {
            byName[schema.name.lowercased()] = i
            byPrefix[schema.keyPrefix] = i
        }
        schemaIndexByName = byName
        schemaIndexByPrefix = byPrefix
        state = Locked(OrgState(tables: schemas.map(Table.init(schema:))))
    }

    /// The canonical name of an object given in any case (`account` → `Account`), nil if unknown.
    public func canonicalObjectName(_ name: String) -> String? {
        schemaIndexByName[name.lowercased()].map { schemas[$0].name }
    }

    /// The schema of an object given in any case.
    public func schema(named name: String) -> ObjectSchema? {
        schemaIndexByName[name.lowercased()].map { schemas[$0] }
    }

    /// The schema whose key prefix starts `id`.
    public func schema(forId id: String) -> ObjectSchema? {
        guard id.count >= 3 else { return nil }
        return schemaIndexByPrefix[String(id.prefix(3))].map { schemas[$0] }
    }

    /// The login principal with this username (case-insensitive, as Salesforce usernames are).
    public func credential(username: String) -> Credential? {
        let lower = username.lowercased()
        return credentials.first { $0.username.lowercased() == lower }
    }

    /// Every record of an object in insertion order, deleted ones included (check `isDeleted`).
    public func records(of type: String) -> [SObjectRecord] {
        guard let t = schemaIndexByName[type.lowercased()] else { return [] }
        return state.withLock { $0.tables[t].rows }
    }

    /// Number of records of an object, deleted ones included.
    public func count(of type: String) -> Int {
        guard let t = schemaIndexByName[type.lowercased()] else { return 0 }
        return state.withLock { $0.tables[t].rows.count }
    }

    /// The record with this 15- or 18-character id, of any type, deleted or not.
    public func record(id: String) -> SObjectRecord? {
        guard let id18 = SalesforceId.to18(id), let t = schemaIndexByPrefix[String(id18.prefix(3))] else { return nil }
        return state.withLock { s in s.tables[t].rowById[id18].map { s.tables[t].rows[$0] } }
    }

    /// The live (not deleted) record of `type` with this id, or NOT_FOUND / INVALID_TYPE.
    public func record(type: String, id: String) throws(SalesforceError) -> SObjectRecord {
        guard let canonical = canonicalObjectName(type) else { throw .unsupportedType(type) }
        guard SalesforceId.to18(id) != nil else {
            // Salesforce reads a string that is no id as an external id value.
            throw .notFound("Provided external ID field does not exist or is not accessible: \(id)")
        }
        guard let record = record(id: id), record.type == canonical else { throw .notFound() }
        if record.isDeleted { throw .entityIsDeleted() }
        return record
    }

    /// A consistent view of every table for one query (no lock held while evaluating).
    func snapshot() -> OrgState { state.withLock { $0 } }
}

/// Everything that changes at run time, copied on write.
struct OrgState: Sendable {
    var tables: [Table]
}
