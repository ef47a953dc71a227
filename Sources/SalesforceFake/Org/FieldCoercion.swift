/// Checks and normalizes a value written to a field (REST body or fixture line): JSON type,
/// picklist membership, length, id form, date and datetime syntax.
enum FieldCoercion {
    static func coerce(_ value: JSONValue, for field: FieldSchema, object: String, org: Org?) throws(SalesforceError)
        -> JSONValue
    {
        if value.isNull { return .null }
        switch field.type {
        case .boolean:
            guard case .bool = value else { throw typeError(value, "boolean", field) }
            return value
        case .int:
            guard let i = value.intValue else { throw typeError(value, "int", field) }
            return .int(i)
        case .double, .currency, .percent:
            guard let d = value.doubleValue else { throw typeError(value, "double", field) }
            return .double(d)
        case .date:
            guard let s = value.stringValue, let days = CivilTime.parseDate(s) else {
                throw .invalidValue(
                    "INVALID_TYPE_ON_FIELD_IN_RECORD",
                    "\(field.label): value not of required type: \(value.serialized())")
            }
            return .string(CivilTime.formatDate(days))
        case .datetime:
            guard let s = value.stringValue, let ms = CivilTime.parseDateTime(s) else {
                throw .invalidValue(
                    "INVALID_TYPE_ON_FIELD_IN_RECORD",
                    "\(field.label): value not of required type: \(value.serialized())")
            }
            return .string(CivilTime.formatDateTime(ms))
        case .id, .reference:
            guard let s = value.stringValue else { throw typeError(value, "String", field) }
            guard let id18 = SalesforceId.to18(s) else { throw .malformedId(s) }
            if field.type == .reference, let org {
                guard let target = org.record(id: id18), field.referenceTo.contains(target.type), !target.isDeleted
                else {
                    throw .invalidValue(
                        "INVALID_CROSS_REFERENCE_KEY", "\(field.label): id value of incorrect type: \(s)")
                }
            }
            return .string(id18)
        case .string, .textarea, .picklist, .multipicklist, .phone, .url, .email:
            guard let s = value.stringValue else { throw typeError(value, "String", field) }
            if field.length > 0, s.count > field.length {
                throw .invalidValue(
                    "STRING_TOO_LONG", "\(field.label): data value too large: \(s) (max length=\(field.length))")
            }
            if field.type == .picklist, !field.picklistValues.isEmpty, !field.picklistValues.contains(s) {
                throw .invalidValue(
                    "INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST",
                    "\(field.label): bad value for restricted picklist field: \(s)")
            }
            if field.type == .multipicklist, !field.picklistValues.isEmpty {
                for part in s.split(separator: ";") where !field.picklistValues.contains(String(part)) {
                    throw .invalidValue(
                        "INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST",
                        "\(field.label): bad value for restricted picklist field: \(part)")
                }
            }
            if field.type == .email, !s.isEmpty, !(s.contains("@") && s.contains(".")) {
                throw .invalidValue("INVALID_EMAIL_ADDRESS", "\(field.label): invalid email address: \(s)")
            }
            return .string(s)
        }
    }

    private static func typeError(_ value: JSONValue, _ expected: String, _ field: FieldSchema) -> SalesforceError {
        .jsonParserError(
            "Cannot deserialize instance of \(expected) from \(jsonKind(value)) value \(value.serialized()) for field \(field.name)"
        )
    }

    static func jsonKind(_ value: JSONValue) -> String {
        switch value {
        case .string: return "VALUE_STRING"
        case .int: return "VALUE_NUMBER_INT"
        case .double: return "VALUE_NUMBER_FLOAT"
        case .bool(let b): return b ? "VALUE_TRUE" : "VALUE_FALSE"
        case .array: return "START_ARRAY"
        case .object: return "START_OBJECT"
        case .null: return "VALUE_NULL"
        }
    }
}
