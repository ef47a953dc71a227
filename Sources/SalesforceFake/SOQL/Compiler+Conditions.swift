extension Compiler {
    /// A WHERE condition as a closure over one row.
    mutating func rowPredicate(_ condition: Condition, _ scope: Scope) throws(SalesforceError) -> RowPredicate {
        switch condition {
        case .and(let items):
            var parts: [RowPredicate] = []
            for item in items { parts.append(try rowPredicate(item, scope)) }
            let all = parts
            return { row, ctx in
                for p in all where !p(row, ctx) { return false }
                return true
            }
        case .or(let items):
            var parts: [RowPredicate] = []
            for item in items { parts.append(try rowPredicate(item, scope)) }
            let any = parts
            return { row, ctx in
                for p in any where p(row, ctx) { return true }
                return false
            }
        case .not(let inner):
            let p = try rowPredicate(inner, scope)
            return { row, ctx in !p(row, ctx) }
        case .inQuery(let operand, let inner, let negated, let offset):
            let accessor = try pathAccessor(operand, scope)
            guard accessor.field.type == .id || accessor.field.type == .reference else {
                throw malformed(
                    "Semi-join and anti-join left operands must be an Id or a reference field: \(accessor.field.name)",
                    at: offset)
            }
            var sub = Compiler(org: org, query: query)
            sub.semiJoins = semiJoins
            let plan = try sub.plan(inner, semiJoin: true)
            semiJoins = sub.semiJoins
            guard case .records(let columns) = plan.output, columns.count == 1,
                case .value(_, let innerAccessor, nil) = columns[0],
                innerAccessor.field.type == .id || innerAccessor.field.type == .reference
            else {
                throw malformed(
                    "A semi-join or anti-join subquery must select exactly one Id or reference field",
                    at: inner.from.offset)
            }
            let index = semiJoins.count
            semiJoins.append(SemiJoin(plan: plan, accessor: innerAccessor))
            return { row, ctx in
                let value = ctx.value(accessor, row)
                guard let key = Values.key(value) else { return negated }
                return ctx.semiJoinSets[index].contains(key) != negated
            }
        case .compare(let operand, _, _, _), .like(let operand, _, _), .inList(let operand, _, _, _),
            .includes(let operand, _, _, _):
            let accessor = try pathAccessor(operand, scope)
            guard accessor.field.filterable else {
                throw located(
                    .invalidField("field '\(accessor.field.name)' can not be filtered in a query call"),
                    at: operand.offset)
            }
            let test = try valueTest(condition, field: accessor.field)
            if accessor.hops.isEmpty, case .position(let p) = accessor.final {
                return { row, _ in test(row.values[p]) }
            }
            return { row, ctx in test(ctx.value(accessor, row)) }
        }
    }

    func pathAccessor(_ operand: Operand, _ scope: Scope) throws(SalesforceError) -> FieldAccessor {
        switch operand {
        case .path(let path): return try resolve(path, scope).accessor
        case .aggregate(_, _, let offset):
            throw malformed("Aggregate functions are not allowed in a WHERE clause; use HAVING", at: offset)
        }
    }

    /// The test a simple condition applies to the value of its left operand.
    func valueTest(_ condition: Condition, field: FieldSchema) throws(SalesforceError) -> ValueTest {
        switch condition {
        case .compare(_, let op, let literal, let offset):
            return try compareTest(op, literal, field: field, offset: offset)
        case .like(_, let literal, let offset):
            guard field.type.isText, field.type != .multipicklist else {
                throw malformed("invalid operator on field \(field.name): LIKE applies to text fields only", at: offset)
            }
            guard case .string(_, let raw) = literal else { throw literalTypeError(field, offset) }
            let pattern = LikePattern(raw: raw)
            return { value in
                guard case .string(let s) = value else { return false }
                return pattern.matches(s)
            }
        case .inList(_, let literals, let negated, let offset):
            var keys: Set<String> = []
            var includesNull = false
            for literal in literals {
                if literal == .null { includesNull = true; continue }
                keys.insert(try literalKey(literal, field: field, offset: offset))
            }
            let set = keys, nullMatches = includesNull
            return { value in
                guard let key = Values.key(value) else { return nullMatches != negated }
                return set.contains(key) != negated
            }
        case .includes(_, let literals, let excludes, let offset):
            guard field.type == .multipicklist else {
                throw malformed(
                    "INCLUDES and EXCLUDES apply to multi-select picklist fields only: \(field.name)", at: offset)
            }
            var wanted: [Set<String>] = []
            for literal in literals {
                guard case .string(let s, _) = literal else { throw literalTypeError(field, offset) }
                wanted.append(Set(s.lowercased().split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }))
            }
            let sets = wanted
            return { value in
                guard case .string(let s) = value else { return excludes }
                let have = Set(s.lowercased().split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) })
                let hit = sets.contains { $0.isSubset(of: have) }
                return hit != excludes
            }
        default:
            return { _ in false }
        }
    }

    func literalTypeError(_ field: FieldSchema, _ offset: Int) -> SalesforceError {
        let (typeName, quoted): (String, Bool)
        switch field.type {
        case .boolean: (typeName, quoted) = ("boolean", false)
        case .int: (typeName, quoted) = ("integer", false)
        case .double, .currency, .percent: (typeName, quoted) = ("double", false)
        case .date: (typeName, quoted) = ("date", false)
        case .datetime: (typeName, quoted) = ("dateTime", false)
        default: (typeName, quoted) = ("string", true)
        }
        return located(
            .invalidField(
                "value of filter criterion for field '\(field.name)' must be of type \(typeName) and should \(quoted ? "" : "not ")be enclosed in quotes"
            ), at: offset)
    }

    /// The normalized key of a literal compared with `field` (for IN lists and index hints).
    func literalKey(_ literal: Literal, field: FieldSchema, offset: Int) throws(SalesforceError) -> String {
        switch (field.type, literal) {
        case (.id, .string(let s, _)), (.reference, .string(let s, _)):
            guard let id = SalesforceId.to18(s) else { throw invalidId(s, offset) }
            return id.lowercased()
        case (let type, .string(let s, _)) where type.isText:
            return s.lowercased()
        case (.boolean, .bool(let b)):
            return b ? "true" : "false"
        case (let type, .number(let text)) where type.isNumeric:
            guard let d = Double(text) else { throw literalTypeError(field, offset) }
            return EqualityIndex.key(.double(d))!
        case (.date, .date(let days)):
            return CivilTime.formatDate(days)
        case (.datetime, .dateTime(let ms)):
            return CivilTime.formatDateTime(ms).lowercased()
        default:
            throw literalTypeError(field, offset)
        }
    }

    func invalidId(_ text: String, _ offset: Int) -> SalesforceError {
        located(
            SalesforceError(
                errorCode: "INVALID_QUERY_FILTER_OPERATOR", message: "invalid ID field: \(text)", httpStatus: 400),
            at: offset)
    }
}

import Foundation
