/// A field path resolved through its relationships.
struct ResolvedPath {
    var accessor: FieldAccessor
    /// Canonical relationship names of the hops (`Owner`, `Account`...).
    var relationships: [String]
    /// Whether each hop is polymorphic (`Who`, `What`).
    var polymorphic: [Bool]
    /// Canonical name of the final field.
    var fieldName: String
    /// Canonical dotted text, e.g. `Owner.Name` (duplicate detection, grouping identity).
    var canonical: String
}

extension Compiler {
    /// Resolves `Owner.Name`, `Account.Owner.Name` (up to 5 relationships), `Who.Name` (polymorphic).
    func resolve(_ path: Path, _ scope: Scope) throws(SalesforceError) -> ResolvedPath {
        var segments = path.segments
        if segments.count > 1, let alias = scope.alias, segments[0].text.lowercased() == alias.lowercased() {
            segments.removeFirst()
        }
        guard segments.count <= 6 else {
            throw malformed("SOQL statements cannot query more than 5 levels of relationships", at: path.offset)
        }
        var schema = org.schemas[scope.table]
        var polymorphicTargets: [ObjectSchema]?
        var hops: [Int] = []
        var relationships: [String] = []
        var polymorphic: [Bool] = []
        for segment in segments.dropLast() {
            guard polymorphicTargets == nil, let ref = schema.referenceField(relationshipName: segment.text) else {
                throw located(
                    .invalidField(
                        "Didn't understand relationship '\(segment.text)' in field path. If you are attempting to use a custom relationship, be sure to append the '__r' after the custom relationship name. Please reference your WSDL or the describe call for the appropriate names."
                    ), at: segment.offset)
            }
            hops.append(schema.layout.position(of: ref.name)!)
            relationships.append(ref.relationshipName!)
            if ref.isPolymorphic {
                polymorphicTargets = ref.referenceTo.compactMap { org.schema(named: $0) }
                polymorphic.append(true)
            } else if let target = org.schema(named: ref.referenceTo[0]) {
                schema = target
                polymorphic.append(false)
            } else {
                throw located(
                    .invalidType("sObject type '\(ref.referenceTo[0])' is not supported."), at: segment.offset)
            }
        }
        let last = segments[segments.count - 1]
        let canonicalPrefix = relationships.map { $0 + "." }.joined()
        if let targets = polymorphicTargets {
            if last.text.lowercased() == "type" {
                let field = FieldSchema(name: "Type", type: .string, createable: false, updateable: false)
                return ResolvedPath(
                    accessor: FieldAccessor(hops: hops, final: .typeName, field: field), relationships: relationships,
                    polymorphic: polymorphic, fieldName: "Type", canonical: canonicalPrefix + "Type")
            }
            // Polymorphic lookups reach the target through Salesforce's "Name" pseudo-object:
            // only its fields can be read; a target lacking one reads null.
            guard let nameField = Compiler.nameObjectFields.first(where: { $0.lowercased() == last.text.lowercased() })
            else {
                throw located(.invalidField(noSuchColumn(last.text, entity: "Name")), at: last.offset)
            }
            let field =
                targets.lazy.compactMap({ $0.field(named: nameField) }).first
                ?? FieldSchema(
                    name: nameField, type: nameField == "IsActive" ? .boolean : .string, createable: false,
                    updateable: false)
            return ResolvedPath(
                accessor: FieldAccessor(hops: hops, final: .name(field.name), field: field),
                relationships: relationships, polymorphic: polymorphic, fieldName: field.name,
                canonical: canonicalPrefix + field.name)
        }
        guard let position = schema.layout.position(of: last.text) else {
            throw located(.invalidField(noSuchColumn(last.text, entity: schema.name)), at: last.offset)
        }
        let field = schema.fields[position]
        return ResolvedPath(
            accessor: FieldAccessor(hops: hops, final: .position(position), field: field), relationships: relationships,
            polymorphic: polymorphic, fieldName: field.name, canonical: canonicalPrefix + field.name)
    }

    /// Fields of the "Name" pseudo-object (polymorphic `Who`, `What`, `Owner` targets).
    static let nameObjectFields = [
        "Id", "Name", "Type", "FirstName", "LastName", "Alias", "Email", "Title", "IsActive", "Phone", "UserRoleId",
        "ProfileId",
    ]

    func noSuchColumn(_ name: String, entity: String) -> String {
        "No such column '\(name)' on entity '\(entity)'. If you are attempting to use a custom field, be sure to append the '__c' after the custom field name. Please reference your WSDL or the describe call for the appropriate names."
    }
}
