/// Resolves a parsed query against the org's schemas: canonical names, field types, literal
/// types, relationship hops; produces a reusable `Plan` or the error Salesforce would give.
struct Compiler {
    let org: Org
    let query: String
    /// Semi-join subqueries found so far (shared by the whole query tree).
    var semiJoins: [SemiJoin] = []

    init(org: Org, query: String) {
        self.org = org
        self.query = query
    }

    static func compile(_ query: String, org: Org) throws(SalesforceError) -> Plan {
        let ast = try Parser.parse(query)
        var compiler = Compiler(org: org, query: query)
        return try compiler.plan(ast, semiJoin: false)
    }

    func located(_ error: SalesforceError, at offset: Int) -> SalesforceError {
        var e = error
        e.message = QueryErrorFormat.message(query: query, offset: offset, text: error.message)
        return e
    }

    func malformed(_ message: String, at offset: Int) -> SalesforceError {
        located(.malformedQuery(message), at: offset)
    }

    /// The table index of an object named in FROM.
    func table(_ name: Name) throws(SalesforceError) -> Int {
        guard let t = org.schemaIndexByName[name.text.lowercased()] else {
            throw located(
                .invalidType(
                    "sObject type '\(name.text)' is not supported. If you are attempting to use a custom object, be sure to append the '__c' after the entity name. Please reference your WSDL or the describe call for the appropriate names."
                ), at: name.offset)
        }
        return t
    }

    mutating func plan(_ ast: QueryAST, semiJoin: Bool) throws(SalesforceError) -> Plan {
        let t = try table(ast.from)
        let schema = org.schemas[t]
        let scope = Scope(table: t, alias: ast.alias)
        try checkLimits(ast)
        if let condition = ast.whereClause { try checkSemiJoins(condition, insideSemiJoin: semiJoin) }
        let filter = try ast.whereClause.map { c throws(SalesforceError) in try rowPredicate(c, scope) }
        let hints = ast.whereClause.map { indexHints($0, scope) } ?? []
        let isAggregate =
            !ast.groupBy.isEmpty
            || ast.select.contains { item in
                switch item {
                case .aggregate, .formatAggregate: return true
                default: return false
                }
            }
        if ast.select.contains(where: {
            if case .aggregate(.count, nil, _, _) = $0 { return true } else { return false }
        }) {
            guard ast.select.count == 1, ast.groupBy.isEmpty, !semiJoin else {
                throw malformed(
                    "COUNT() must be the only element in the SELECT list and cannot be used with GROUP BY",
                    at: ast.from.offset)
            }
            return Plan(
                table: t, objectName: schema.name, filter: filter, indexHints: hints, order: [], limit: ast.limit,
                offset: ast.offset, output: .countOnly, semiJoins: semiJoins)
        }
        if isAggregate {
            guard !semiJoin else {
                throw malformed("Aggregate functions are not supported in semi-join subqueries", at: ast.from.offset)
            }
            if ast.having != nil && ast.groupBy.isEmpty {
                throw malformed("HAVING requires GROUP BY", at: ast.from.offset)
            }
            let aggregate = try aggregatePlan(ast, scope)
            return Plan(
                table: t, objectName: schema.name, filter: filter, indexHints: hints, order: aggregate.order,
                limit: ast.limit, offset: ast.offset, output: .aggregate(aggregate), semiJoins: semiJoins)
        }
        if ast.having != nil { throw malformed("HAVING requires GROUP BY", at: ast.from.offset) }
        let columns = try selectColumns(ast, scope, allowSubqueries: !semiJoin)
        let order = try ast.orderBy.map { item throws(SalesforceError) in try sortKey(item, scope) }
        return Plan(
            table: t, objectName: schema.name, filter: filter, indexHints: hints, order: order, limit: ast.limit,
            offset: ast.offset, output: .records(columns), semiJoins: semiJoins)
    }

    func checkLimits(_ ast: QueryAST) throws(SalesforceError) {
        if let offset = ast.offset, offset > org.settings.maxOffset {
            throw located(
                SalesforceError(
                    errorCode: "NUMBER_OUTSIDE_VALID_RANGE",
                    message: "Maximum SOQL offset allowed is \(org.settings.maxOffset)", httpStatus: 400),
                at: ast.offsetOffset)
        }
        for item in ast.select {
            if case .fields(let scope, let offset) = item, scope != .standard {
                guard let limit = ast.limit, limit <= 200 else {
                    throw malformed("The SOQL FIELDS function must have a LIMIT of at most 200", at: offset)
                }
            }
        }
    }

    func sortKey(_ item: OrderItem, _ scope: Scope) throws(SalesforceError) -> SortKey {
        switch item.key {
        case .path(let path):
            let resolved = try resolve(path, scope)
            guard resolved.accessor.field.sortable else {
                throw located(
                    .invalidField("field '\(resolved.accessor.field.name)' can not be sorted in a query call"),
                    at: path.offset)
            }
            return SortKey(
                source: .field(resolved.accessor), descending: item.descending,
                nullsFirst: item.nullsFirst ?? !item.descending)
        case .aggregate(_, _, let offset):
            throw malformed("Aggregate functions in ORDER BY need GROUP BY or an aggregate SELECT", at: offset)
        }
    }
}

/// What names resolve against: the FROM object and its alias.
struct Scope: Sendable {
    var table: Int
    var alias: String?
}
