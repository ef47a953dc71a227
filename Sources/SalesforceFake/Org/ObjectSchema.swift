/// Field names of one object in a fixed order, with case-insensitive lookup. Shared by the
/// schema and all its records so a record stores only its values (compact for 100k rows).
public final class FieldLayout: Sendable {
    /// Canonical field names in schema order; `Id` is always first.
    public let names: [String]
    private let positions: [String: Int]

    public init(names: [String]) {
        self.names = names
        var positions: [String: Int] = [:]
        for (i, name) in names.enumerated() where positions[name.lowercased()] == nil {
            positions[name.lowercased()] = i
        }
        self.positions = positions
    }

    /// Position of `name` in any case, nil when the object has no such field.
    public func position(of name: String) -> Int? {
        positions[name] ?? positions[name.lowercased()]
    }
}

/// One sObject type, from `schema/<Object>.json`: what `describe` reports and what SOQL resolves
/// names against.
public struct ObjectSchema: Hashable, Sendable {
    /// Canonical API name, e.g. `Account`.
    public let name: String
    public let label: String
    public let labelPlural: String
    /// Three-character id prefix (`001` for Account); ids of new records start with it.
    public let keyPrefix: String
    /// Fields in describe order; `Id` is first.
    public let fields: [FieldSchema]
    public let childRelationships: [ChildRelationship]
    public let layout: FieldLayout

    public init(
        name: String, label: String? = nil, labelPlural: String? = nil, keyPrefix: String, fields: [FieldSchema],
        childRelationships: [ChildRelationship] = []
    ) {
        self.name = name
        self.label = label ?? name
        self.labelPlural = labelPlural ?? (label ?? name) + "s"
        self.keyPrefix = keyPrefix
        var fields = fields
        if let idAt = fields.firstIndex(where: { $0.name.lowercased() == "id" }) {
            let id = fields.remove(at: idAt)
            fields.insert(id, at: 0)
        } else {
            fields.insert(
                FieldSchema(
                    name: "Id", label: "\(label ?? name) ID", type: .id, nillable: false, createable: false,
                    updateable: false, length: 18), at: 0)
        }
        // IsDeleted always sits second: the evaluator reads it by position on every row.
        if let at = fields.firstIndex(where: { $0.name.lowercased() == "isdeleted" }) {
            fields.insert(fields.remove(at: at), at: 1)
        } else {
            fields.insert(
                FieldSchema(
                    name: "IsDeleted", label: "Deleted", type: .boolean, nillable: false, createable: false,
                    updateable: false), at: 1)
        }
        self.fields = fields
        self.childRelationships = childRelationships
        self.layout = FieldLayout(names: fields.map(\.name))
    }

    /// The field named `name` in any case.
    public func field(named name: String) -> FieldSchema? {
        layout.position(of: name).map { fields[$0] }
    }

    /// The reference field whose relationship name is `name` in any case (`Owner` → `OwnerId`).
    public func referenceField(relationshipName name: String) -> FieldSchema? {
        let lower = name.lowercased()
        return fields.first { $0.type == .reference && $0.relationshipName?.lowercased() == lower }
    }

    /// The child relationship named `name` in any case (`contacts` → Contact.AccountId).
    public func childRelationship(named name: String) -> ChildRelationship? {
        let lower = name.lowercased()
        return childRelationships.first { $0.relationshipName.lowercased() == lower }
    }

    public static func == (lhs: ObjectSchema, rhs: ObjectSchema) -> Bool {
        lhs.name == rhs.name && lhs.label == rhs.label && lhs.labelPlural == rhs.labelPlural
            && lhs.keyPrefix == rhs.keyPrefix && lhs.fields == rhs.fields
            && lhs.childRelationships == rhs.childRelationships
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(keyPrefix)
        hasher.combine(fields)
    }
}
