import WhaleCore

/// The grammar half of `SOQLFuzzer`: a SOQL query over real schemas, every clause optional,
/// literals usually of the field's type, sometimes of another. Separate tokens by spaces so the
/// token mutations can cut between them.
struct SOQLGrammar {
    let objects: [ObjectSchema]
    var rng: SplitMix64
    /// Strict queries keep to what a careful user writes (plain fields and paths, child
    /// subqueries, literals of the field's type, no grouping), so most of them are answered and
    /// the evaluator, not only the compiler's errors, gets exercised.
    var strict = false

    init(objects: [ObjectSchema], rng: SplitMix64) {
        self.objects = objects
        self.rng = rng
    }

    mutating func chance(_ percent: Int) -> Bool { rng.below(100) < percent }

    /// An identifier in a random letter case (SOQL names are case-insensitive).
    mutating func cased(_ name: String) -> String {
        switch rng.below(4) {
        case 0: return name.lowercased()
        case 1: return name.uppercased()
        default: return name
        }
    }

    mutating func query(depth: Int) -> String {
        let schema = rng.pick(objects)
        var parts = ["SELECT", selectList(schema, depth: depth), "FROM", cased(schema.name)]
        if chance(60) { parts += ["WHERE", condition(schema, depth: depth, level: 0)] }
        if !strict, chance(15) { parts += ["GROUP BY", cased(rng.pick(schema.fields).name)] }
        if !strict, chance(8) { parts += ["HAVING COUNT(Id) >", String(rng.below(3))] }
        if chance(30) {
            parts += [
                "ORDER BY", path(schema), rng.pick(["", "ASC", "DESC"]), rng.pick(["", "NULLS FIRST", "NULLS LAST"]),
            ]
        }
        if chance(35) { parts += ["LIMIT", strict ? rng.pick(["1", "5", "200"]) : number()] }
        if !strict, chance(15) {
            parts += ["OFFSET", rng.pick(["0", "1", "5", "2000", "2001", "100000", "2147483647"])]
        }
        return parts.filter { !$0.isEmpty }.joined(separator: " ")
    }

    mutating func number() -> String {
        rng.pick([
            "0", "1", "2", "10", "200", "201", "2000", "50000", "2147483647", "2147483648", "-1", "9223372036854775807",
        ])
    }

    mutating func selectList(_ schema: ObjectSchema, depth: Int) -> String {
        var items: [String] = []
        for _ in 0..<(1 + rng.below(4)) {
            switch strict ? [2, 5, 6, 7][rng.below(4)] : rng.below(14) {
            case 0: items.append("COUNT()")
            case 1:
                items.append(
                    rng.pick(["COUNT", "SUM", "MIN", "MAX", "AVG", "COUNT_DISTINCT"]) + "(" + path(schema) + ")")
            case 2:
                if depth == 0,
                    let child = schema.childRelationships.first.map({ _ in rng.pick(schema.childRelationships) })
                {
                    items.append(
                        "( SELECT " + cased("Id") + " FROM " + cased(child.relationshipName)
                            + (chance(50)
                                ? " WHERE " + condition(childSchema(child) ?? schema, depth: depth + 1, level: 0) : "")
                            + (chance(30) ? " LIMIT " + number() : "") + " )")
                } else {
                    items.append("( " + query(depth: depth + 1) + " )")
                }
            case 3: items.append("FIELDS(" + rng.pick(["ALL", "STANDARD", "CUSTOM"]) + ")")
            case 4: items.append(rng.pick(["toLabel", "FORMAT"]) + "(" + path(schema) + ")")
            default: items.append(path(schema))
            }
        }
        return items.joined(separator: " , ")
    }

    func childSchema(_ child: ChildRelationship) -> ObjectSchema? {
        objects.first { $0.name == child.childSObject }
    }

    /// A field, or a parent path through up to three relationships (`Account.Owner.Name`, `What.Type`).
    mutating func path(_ schema: ObjectSchema) -> String {
        var current = schema
        var segments: [String] = []
        for _ in 0..<rng.below(4) {
            let refs = current.fields.filter { $0.type == .reference && $0.relationshipName != nil }
            guard !refs.isEmpty, chance(60) else { break }
            let ref = rng.pick(refs)
            segments.append(cased(ref.relationshipName!))
            if ref.isPolymorphic {
                segments.append(rng.pick(["Type", "Name", "Id", "Email", "Nope"]))
                return segments.joined(separator: ".")
            }
            guard let target = objects.first(where: { $0.name == ref.referenceTo[0] }) else { break }
            current = target
        }
        segments.append(!strict && chance(3) ? "NoSuchField__c" : cased(rng.pick(current.fields).name))
        return segments.joined(separator: ".")
    }

    mutating func condition(_ schema: ObjectSchema, depth: Int, level: Int) -> String {
        if level < 3, chance(35) {
            let op = rng.pick(["AND", "OR"])
            let n = 2 + rng.below(2)
            var items: [String] = []
            for _ in 0..<n { items.append(condition(schema, depth: depth, level: level + 1)) }
            return "( " + items.joined(separator: " \(op) ") + " )"
        }
        if chance(8) { return "NOT " + condition(schema, depth: depth, level: level + 1) }
        if depth < 3, chance(12) { return semiJoin(schema, depth: depth) }
        let field = rng.pick(schema.fields)
        let lhs = !strict && chance(20) ? path(schema) : cased(field.name)
        switch rng.below(10) {
        case 0: return lhs + " LIKE " + stringLiteral()
        case 1, 2:
            var values: [String] = []
            for _ in 0..<(1 + rng.below(3)) { values.append(literal(field)) }
            return lhs + (chance(30) ? " NOT IN ( " : " IN ( ") + values.joined(separator: " , ") + " )"
        case 3: return lhs + rng.pick([" INCLUDES ( ", " EXCLUDES ( "]) + stringLiteral() + " )"
        default: return lhs + " " + rng.pick(["=", "!=", "<", "<=", ">", ">="]) + " " + literal(field)
        }
    }

    /// `Id IN (SELECT ref FROM Child …)`, sometimes nested (which Salesforce refuses).
    mutating func semiJoin(_ schema: ObjectSchema, depth: Int) -> String {
        let other = rng.pick(objects)
        let refs = other.fields.filter { $0.type == .reference || $0.type == .id }
        let selected = refs.isEmpty ? "Id" : cased(rng.pick(refs).name)
        let lhsFields = schema.fields.filter { $0.type == .reference || $0.type == .id }
        let lhs = lhsFields.isEmpty ? "Id" : cased(rng.pick(lhsFields).name)
        var inner = "SELECT " + selected + " FROM " + cased(other.name)
        if chance(50) { inner += " WHERE " + condition(other, depth: depth + 1, level: 1) }
        return lhs + (chance(25) ? " NOT IN ( " : " IN ( ") + inner + " )"
    }

    mutating func stringLiteral() -> String {
        rng.pick([
            "'Acme'", "'%a%'", "'A_me%'", "'it\\'s'", "'back\\\\slash'", "'\\%'", "''", "'日本語'", "'🐋'", "'Customer%'",
            "'CA'", "'Technology'", "'West;EMEA'", "'\\n'", "'\\q'",
        ])
    }

    mutating func literal(_ field: FieldSchema) -> String {
        if !strict, chance(15) { return rng.pick(["null", "TRUE", "'x'", "42", "2024-06-14", "TODAY"]) }
        switch field.type {
        case .id, .reference:
            let prefix =
                field.referenceTo.first.flatMap { name in objects.first { $0.name == name }?.keyPrefix } ?? "001"
            return rng.pick([
                "'\(prefix)5g0000AcC001AQC'", "'\(prefix)5g0000AcC001'", "'\(prefix)'", "'not-an-id'", "null",
                "'\(prefix)5g0000AcC001AQX'",
            ])
        case .boolean: return rng.pick(["TRUE", "FALSE", "true", "null"])
        case .int, .double, .currency, .percent:
            return rng.pick([
                "0", "1", "-1", "1.5", "1000000", "-2147483649", "99999999999999999999999999", "0.0001", "- 5",
            ])
        case .date:
            return rng.pick([
                "2024-06-14", "2024-02-29", "2023-02-29", "TODAY", "YESTERDAY", "LAST_N_DAYS:30", "NEXT_N_DAYS:0",
                "THIS_MONTH", "LAST_N_MONTHS:2147483647", "NEXT_N_YEARS:100000", "NEXT_N_YEARS:100001",
                "LAST_FISCAL_QUARTER",
            ])
        case .datetime:
            return rng.pick([
                "2024-06-14T10:00:00Z", "2024-06-14T10:00:00.000+0000", "2024-06-14T10:00:00-08:00", "TODAY",
                "LAST_N_DAYS:7", "9999-12-31T23:59:59Z", "0001-01-01T00:00:00Z",
            ])
        default:
            return stringLiteral()
        }
    }
}
