extension FakeSalesforce {
    /// `GET /sobjects`: global describe, one basic entry per object in schema order.
    func globalDescribe(version: String) -> JSONValue {
        .object([
            ("encoding", "UTF-8"),
            ("maxBatchSize", 200),
            ("sobjects", .array(org.schemas.map { .object(Self.basicDescribe($0, version: version)) })),
        ])
    }

    /// `GET /sobjects/{Type}`: basic info plus (always empty) recent items.
    func sobjectInfo(type: String, version: String) -> SFResponse {
        guard let schema = org.schema(named: type) else { return Self.unsupportedType(type) }
        return .json(
            200,
            .object([
                ("objectDescribe", .object(Self.basicDescribe(schema, version: version))), ("recentItems", .array([])),
            ]))
    }

    /// `GET /sobjects/{Type}/describe`: generated from the schema file.
    func describe(_ schema: ObjectSchema, version: String) -> JSONValue {
        var pairs = Self.basicDescribe(schema, version: version)
        let extra: [(String, JSONValue)] = [
            ("actionOverrides", .array([])),
            ("childRelationships", .array(schema.childRelationships.map(Self.describe))),
            ("compactLayoutable", true),
            ("fields", .array(schema.fields.map(Self.describe))),
            ("namedLayoutInfos", .array([])),
            ("recordTypeInfos", .array([])),
            ("supportedScopes", .array([.object([("label", "All"), ("name", "everything")])])),
        ]
        pairs.append(contentsOf: extra)
        let base = "/services/data/v\(version)/sobjects/\(schema.name)"
        pairs.removeAll { $0.0 == "urls" }
        pairs.append(
            (
                "urls",
                .object([
                    ("compactLayouts", .string(base + "/describe/compactLayouts")),
                    ("rowTemplate", .string(base + "/{ID}")),
                    ("approvalLayouts", .string(base + "/describe/approvalLayouts")),
                    ("describe", .string(base + "/describe")),
                    ("quickActions", .string(base + "/quickActions")),
                    ("layouts", .string(base + "/describe/layouts")),
                    ("sobject", .string(base)),
                ])
            ))
        return .object(pairs.sorted { $0.0 < $1.0 })
    }

    /// The keys global describe and describe share, alphabetical like Salesforce's.
    static func basicDescribe(_ schema: ObjectSchema, version: String) -> [(String, JSONValue)] {
        let base = "/services/data/v\(version)/sobjects/\(schema.name)"
        let custom = schema.name.hasSuffix("__c")
        return [
            ("activateable", false), ("createable", true), ("custom", .bool(custom)), ("customSetting", false),
            ("deletable", true), ("deprecatedAndHidden", false), ("feedEnabled", false), ("hasSubtypes", false),
            ("isSubtype", false), ("keyPrefix", .string(schema.keyPrefix)), ("label", .string(schema.label)),
            ("labelPlural", .string(schema.labelPlural)), ("layoutable", true), ("mergeable", false),
            ("mruEnabled", true), ("name", .string(schema.name)), ("queryable", true), ("replicateable", true),
            ("retrieveable", true), ("searchable", true), ("triggerable", true), ("undeletable", true),
            ("updateable", true),
            (
                "urls",
                .object([
                    ("rowTemplate", .string(base + "/{ID}")), ("describe", .string(base + "/describe")),
                    ("sobject", .string(base)),
                ])
            ),
        ]
    }

    static func describe(_ child: ChildRelationship) -> JSONValue {
        .object([
            ("cascadeDelete", false), ("childSObject", .string(child.childSObject)), ("deprecatedAndHidden", false),
            ("field", .string(child.field)), ("junctionIdListNames", .array([])), ("junctionReferenceTo", .array([])),
            ("relationshipName", .string(child.relationshipName)), ("restrictedDelete", false),
        ])
    }

    /// One entry of `fields`: the schema's flags plus the derived ones (`soapType`, lengths, precision).
    static func describe(_ field: FieldSchema) -> JSONValue {
        let type = field.type
        let textual = type.isText && type != .id && type != .reference
        let length =
            textual
            ? (field.length > 0 ? field.length : (type == .textarea ? 32768 : 255))
            : (type == .id || type == .reference ? 18 : 0)
        let (precision, scale, digits): (Int, Int, Int) =
            switch type {
            case .int: (0, 0, 9)
            case .double, .currency: (18, 2, 0)
            case .percent: (5, 2, 0)
            default: (0, 0, 0)
            }
        let picklist: [JSONValue] = field.picklistValues.map { value in
            .object([
                ("active", true), ("defaultValue", false), ("label", .string(value)), ("validFor", .null),
                ("value", .string(value)),
            ])
        }
        let pairs: [(String, JSONValue)] = [
            ("aggregatable", .bool(type != .textarea && type != .multipicklist)),
            ("autoNumber", false),
            ("byteLength", .int(length * 3)),
            ("calculated", .bool(field.calculated)),
            ("cascadeDelete", false),
            ("caseSensitive", false),
            ("createable", .bool(field.createable && !field.calculated)),
            ("custom", .bool(field.custom)),
            ("defaultValue", .null),
            (
                "defaultedOnCreate",
                .bool(
                    type == .boolean || type == .id
                        || [
                            "CreatedById", "CreatedDate", "LastModifiedById", "LastModifiedDate", "OwnerId",
                            "SystemModstamp",
                        ].contains(field.name))
            ),
            ("dependentPicklist", false),
            ("digits", .int(digits)),
            ("externalId", false),
            ("filterable", .bool(field.filterable)),
            ("groupable", .bool(field.groupable)),
            ("htmlFormatted", false),
            ("idLookup", .bool(type == .id)),
            ("label", .string(field.label)),
            ("length", .int(length)),
            ("name", .string(field.name)),
            ("nameField", .bool(field.name == "Name")),
            ("namePointing", .bool(field.isPolymorphic)),
            ("nillable", .bool(field.nillable)),
            ("permissionable", .bool(field.nillable && !field.calculated)),
            ("picklistValues", .array(picklist)),
            ("polymorphicForeignKey", .bool(field.isPolymorphic)),
            ("precision", .int(precision)),
            ("referenceTo", .array(field.referenceTo.map { .string($0) })),
            ("relationshipName", field.relationshipName.map { .string($0) } ?? .null),
            ("relationshipOrder", .null),
            ("restrictedPicklist", false),
            ("scale", .int(scale)),
            ("soapType", .string(soapType(type))),
            ("sortable", .bool(field.sortable)),
            ("type", .string(type.rawValue)),
            ("unique", false),
            ("updateable", .bool(field.updateable && !field.calculated)),
        ]
        return .object(pairs)
    }

    static func soapType(_ type: FieldType) -> String {
        switch type {
        case .id, .reference: return "tns:ID"
        case .boolean: return "xsd:boolean"
        case .int: return "xsd:int"
        case .double, .currency, .percent: return "xsd:double"
        case .date: return "xsd:date"
        case .datetime: return "xsd:dateTime"
        case .string, .textarea, .picklist, .multipicklist, .phone, .url, .email: return "xsd:string"
        }
    }
}
