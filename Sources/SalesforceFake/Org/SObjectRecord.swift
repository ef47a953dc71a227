/// One record: its type, 18-character id and one value per schema field (`.null` when empty),
/// in schema order. Field lookup is case-insensitive.
///
/// ```swift
/// let account = org.record(id: "001...")!
/// account["billingstate"]   // .string("CA")
/// ```
public struct SObjectRecord: Hashable, Sendable {
    /// Canonical object name, e.g. `Account`.
    public let type: String
    /// 18-character id.
    public let id: String
    /// One value per field of `layout`, in the same order.
    public internal(set) var values: [JSONValue]
    public let layout: FieldLayout

    init(type: String, id: String, values: [JSONValue], layout: FieldLayout) {
        self.type = type
        self.id = id
        self.values = values
        self.layout = layout
    }

    /// The value of a field in any case; nil when the object has no such field.
    public subscript(field: String) -> JSONValue? {
        layout.position(of: field).map { values[$0] }
    }

    /// Soft-deleted rows stay visible to `queryAll` with `IsDeleted = true`.
    public var isDeleted: Bool { self["IsDeleted"]?.boolValue ?? false }

    /// (canonical name, value) pairs in schema order.
    public var fields: [(String, JSONValue)] { Array(zip(layout.names, values)) }

    /// `{"type": "Account", "url": "/services/data/v59.0/sobjects/Account/<id>"}`.
    public func attributes(apiVersion: String) -> JSONValue {
        SObjectRecord.attributes(type: type, id: id, apiVersion: apiVersion)
    }

    static func attributes(type: String, id: String, apiVersion: String) -> JSONValue {
        let version = apiVersion.hasPrefix("v") ? String(apiVersion.dropFirst()) : apiVersion
        return .object([("type", .string(type)), ("url", .string("/services/data/v\(version)/sobjects/\(type)/\(id)"))])
    }

    /// The record as `GET /sobjects/{Type}/{Id}` returns it: attributes, then every field.
    public func json(apiVersion: String) -> JSONValue {
        var pairs: [(String, JSONValue)] = [("attributes", attributes(apiVersion: apiVersion))]
        pairs.reserveCapacity(values.count + 1)
        pairs.append(contentsOf: zip(layout.names, values))
        return .object(pairs)
    }

    public static func == (lhs: SObjectRecord, rhs: SObjectRecord) -> Bool {
        lhs.type == rhs.type && lhs.id == rhs.id && lhs.values == rhs.values
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(type)
        hasher.combine(id)
    }
}
