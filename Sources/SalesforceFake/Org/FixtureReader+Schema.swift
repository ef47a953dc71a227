import Foundation

extension FixtureReader {
    static let fieldKeys = [
        "name", "label", "type", "nillable", "filterable", "sortable", "groupable", "createable", "updateable",
        "custom", "length", "referenceTo", "relationshipName", "picklistValues", "calculated",
        "polymorphic",
    ]

    static func schema(_ file: URL) throws(FixtureError) -> ObjectSchema {
        let json = try parse(file)
        guard let pairs = json.objectValue else {
            throw FixtureError(file: file.path, line: nil, message: "expected an object")
        }
        try checkKeys(
            pairs, allowed: ["name", "label", "labelPlural", "keyPrefix", "fields", "childRelationships"], file: file,
            line: nil, what: "schema")
        guard let name = json["name"]?.stringValue, !name.isEmpty else {
            throw FixtureError(file: file.path, line: nil, message: "field name: expected a non-empty string")
        }
        guard let prefix = json["keyPrefix"]?.stringValue, prefix.count == 3,
            prefix.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) })
        else {
            throw FixtureError(file: file.path, line: nil, message: "field keyPrefix: expected 3 letters or digits")
        }
        guard let rawFields = json["fields"]?.arrayValue, !rawFields.isEmpty else {
            throw FixtureError(file: file.path, line: nil, message: "field fields: expected a non-empty array")
        }
        var fields: [FieldSchema] = []
        for (i, raw) in rawFields.enumerated() {
            let field = try fieldSchema(raw, file: file, at: "fields[\(i)]")
            if fields.contains(where: { $0.name.lowercased() == field.name.lowercased() }) {
                throw FixtureError(file: file.path, line: nil, message: "fields[\(i)]: duplicate field '\(field.name)'")
            }
            fields.append(field)
        }
        var children: [ChildRelationship] = []
        for (i, raw) in (json["childRelationships"]?.arrayValue ?? []).enumerated() {
            guard let child = raw["childSObject"]?.stringValue, let field = raw["field"]?.stringValue,
                let rel = raw["relationshipName"]?.stringValue
            else {
                throw FixtureError(
                    file: file.path, line: nil,
                    message: "childRelationships[\(i)]: expected childSObject, field and relationshipName strings")
            }
            children.append(ChildRelationship(childSObject: child, field: field, relationshipName: rel))
        }
        return ObjectSchema(
            name: name, label: json["label"]?.stringValue, labelPlural: json["labelPlural"]?.stringValue,
            keyPrefix: prefix, fields: fields, childRelationships: children)
    }

    static func fieldSchema(_ raw: JSONValue, file: URL, at path: String) throws(FixtureError) -> FieldSchema {
        guard let pairs = raw.objectValue else {
            throw FixtureError(file: file.path, line: nil, message: "\(path): expected an object")
        }
        try checkKeys(pairs, allowed: fieldKeys, file: file, line: nil, what: path)
        guard let name = raw["name"]?.stringValue, !name.isEmpty else {
            throw FixtureError(file: file.path, line: nil, message: "\(path).name: expected a non-empty string")
        }
        let where_ = "\(path) (\(name))"
        guard let typeText = raw["type"]?.stringValue, let type = FieldType(rawValue: typeText) else {
            throw FixtureError(
                file: file.path, line: nil,
                message: "\(where_).type: expected one of \(FieldType.allCases.map(\.rawValue).joined(separator: ", "))"
            )
        }
        func flag(_ key: String, _ value: Bool) throws(FixtureError) -> Bool {
            guard let v = raw[key] else { return value }
            guard let b = v.boolValue else {
                throw FixtureError(file: file.path, line: nil, message: "\(where_).\(key): expected true or false")
            }
            return b
        }
        func strings(_ key: String) throws(FixtureError) -> [String] {
            guard let v = raw[key] else { return [] }
            guard let items = v.arrayValue, items.allSatisfy({ $0.stringValue != nil }) else {
                throw FixtureError(
                    file: file.path, line: nil, message: "\(where_).\(key): expected an array of strings")
            }
            return items.compactMap(\.stringValue)
        }
        let referenceTo = try strings("referenceTo")
        if type == .reference && referenceTo.isEmpty {
            throw FixtureError(
                file: file.path, line: nil, message: "\(where_).referenceTo: a reference needs at least one object")
        }
        let polymorphic = try flag("polymorphic", false)
        if polymorphic && type != .reference {
            throw FixtureError(
                file: file.path, line: nil, message: "\(where_).polymorphic: only a reference can be polymorphic")
        }
        let calculated = try flag("calculated", false)
        let writable = !calculated && type != .id
        var length = raw["length"]?.intValue ?? 0
        if length == 0 {
            switch type {
            case .id, .reference: length = 18
            case .string, .picklist, .phone, .url: length = 255
            case .email: length = 80
            case .textarea: length = 32000
            case .multipicklist: length = 4099
            default: length = 0
            }
        }
        return FieldSchema(
            name: name, label: raw["label"]?.stringValue, type: type,
            nillable: try flag("nillable", type != .id && type != .boolean),
            filterable: try flag("filterable", type != .textarea),
            sortable: try flag("sortable", type != .textarea && type != .multipicklist),
            groupable: try flag(
                "groupable", type != .textarea && type != .multipicklist && !type.isNumeric || type == .int),
            createable: try flag("createable", writable), updateable: try flag("updateable", writable),
            custom: raw["custom"]?.boolValue, length: length, referenceTo: referenceTo,
            relationshipName: raw["relationshipName"]?.stringValue, picklistValues: try strings("picklistValues"),
            calculated: calculated, polymorphic: polymorphic)
    }

    /// Every referenceTo and child relationship must name a loaded object and field.
    static func checkRelationships(_ schemas: [ObjectSchema], directory: URL) throws(FixtureError) {
        let names = Set(schemas.map(\.name))
        for schema in schemas {
            let file = directory.appendingPathComponent(schema.name + ".json").path
            for field in schema.fields where field.type == .reference {
                for target in field.referenceTo where !names.contains(target) {
                    throw FixtureError(
                        file: file, line: nil,
                        message: "field \(field.name): referenceTo '\(target)' has no schema file")
                }
            }
            for child in schema.childRelationships {
                guard let childSchema = schemas.first(where: { $0.name == child.childSObject }) else {
                    throw FixtureError(
                        file: file, line: nil,
                        message: "childRelationships \(child.relationshipName): no object '\(child.childSObject)'")
                }
                guard let f = childSchema.field(named: child.field), f.type == .reference,
                    f.referenceTo.contains(schema.name)
                else {
                    throw FixtureError(
                        file: file, line: nil,
                        message:
                            "childRelationships \(child.relationshipName): \(child.childSObject).\(child.field) is not a reference to \(schema.name)"
                    )
                }
            }
        }
    }
}
