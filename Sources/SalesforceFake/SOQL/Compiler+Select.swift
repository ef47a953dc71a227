extension Compiler {
    /// Output columns in SELECT order; parent paths sharing a relationship nest under one object
    /// placed where the relationship first appears.
    mutating func selectColumns(_ ast: QueryAST, _ scope: Scope, allowSubqueries: Bool) throws(SalesforceError)
        -> [Column]
    {
        var columns: [Column] = []
        var seen: Set<String> = []
        let schema = org.schemas[scope.table]
        // Salesforce's limit, checked before anything else about the subqueries.
        let subqueries = ast.select.compactMap { item -> Int? in
            if case .subquery(_, let offset) = item { offset } else { nil }
        }
        if subqueries.count > 20 {
            throw malformed(
                "No more than 20 parent-to-child relationships can be specified in a query", at: subqueries[20])
        }
        // Child-to-parent relationships named by the selected paths (`Account`, `Account.Owner`...).
        var parents: Set<String> = []
        func countParents(_ resolved: ResolvedPath, at offset: Int) throws(SalesforceError) {
            var prefix = ""
            for relationship in resolved.relationships {
                prefix += (prefix.isEmpty ? "" : ".") + relationship.lowercased()
                parents.insert(prefix)
            }
            if parents.count > 35 {
                throw malformed("No more than 35 child-to-parent relationships can be specified in a query", at: offset)
            }
        }
        for item in ast.select {
            switch item {
            case .field(let path):
                let resolved = try resolve(path, scope)
                try countParents(resolved, at: path.offset)
                guard seen.insert(resolved.canonical.lowercased()).inserted else {
                    throw malformed("duplicate field selected: \(resolved.canonical)", at: path.offset)
                }
                Compiler.place(resolved, format: nil, key: nil, into: &columns)
            case .toLabel(let path, let alias), .format(let path, let alias):
                let resolved = try resolve(path, scope)
                try countParents(resolved, at: path.offset)
                let format: FormatKind
                if case .toLabel = item {
                    guard resolved.accessor.field.type == .picklist || resolved.accessor.field.type == .multipicklist
                    else {
                        throw malformed(
                            "toLabel() only applies to picklist fields: \(resolved.canonical)", at: path.offset)
                    }
                    format = .toLabel
                } else {
                    format = .format
                }
                guard seen.insert((alias ?? resolved.canonical).lowercased()).inserted else {
                    throw malformed("duplicate field selected: \(alias ?? resolved.canonical)", at: path.offset)
                }
                Compiler.place(resolved, format: format, key: alias, into: &columns)
            case .fields(let fieldsScope, _):
                for (position, field) in schema.fields.enumerated() {
                    let wanted: Bool
                    switch fieldsScope {
                    case .all: wanted = true
                    case .standard: wanted = !field.custom
                    case .custom: wanted = field.custom
                    }
                    guard wanted, seen.insert(field.name.lowercased()).inserted else { continue }
                    columns.append(
                        .value(
                            key: field.name,
                            accessor: FieldAccessor(hops: [], final: .position(position), field: field), format: nil))
                }
            case .subquery(let inner, let offset):
                guard allowSubqueries else {
                    throw malformed("Nesting of child relationship queries is not supported", at: offset)
                }
                let child = try childPlan(inner, parent: schema)
                guard seen.insert(child.key.lowercased()).inserted else {
                    throw malformed("duplicate field selected: \(child.key)", at: offset)
                }
                columns.append(child)
            case .aggregate(_, _, _, let offset), .formatAggregate(_, _, _, let offset):
                throw malformed("Aggregate functions need an aggregate query", at: offset)
            }
        }
        return columns
    }

    /// Puts a resolved path in the column tree: plain fields at this level, parent paths under
    /// their relationship object (created on first use). An alias flattens the path.
    static func place(_ resolved: ResolvedPath, format: FormatKind?, key: String?, into columns: inout [Column]) {
        if let key {
            columns.append(.value(key: key, accessor: resolved.accessor, format: format))
            return
        }
        place(
            hops: resolved.accessor.hops[...], relationships: resolved.relationships[...],
            polymorphic: resolved.polymorphic[...],
            leaf: FieldAccessor(hops: [], final: resolved.accessor.final, field: resolved.accessor.field),
            key: resolved.fieldName, format: format, into: &columns)
    }

    private static func place(
        hops: ArraySlice<Int>, relationships: ArraySlice<String>, polymorphic: ArraySlice<Bool>, leaf: FieldAccessor,
        key: String, format: FormatKind?, into columns: inout [Column]
    ) {
        guard let hop = hops.first, let relationship = relationships.first, let poly = polymorphic.first else {
            columns.append(.value(key: key, accessor: leaf, format: format))
            return
        }
        var children: [Column] = []
        var at = columns.count
        if let existing = columns.firstIndex(where: {
            if case .parent(relationship, _, _, _) = $0 { return true } else { return false }
        }),
            case .parent(_, _, _, let current) = columns[existing]
        {
            children = current
            at = existing
        }
        place(
            hops: hops.dropFirst(), relationships: relationships.dropFirst(), polymorphic: polymorphic.dropFirst(),
            leaf: leaf, key: key, format: format, into: &children)
        let column = Column.parent(key: relationship, hop: hop, polymorphic: poly, children: children)
        if at == columns.count { columns.append(column) } else { columns[at] = column }
    }

    /// `(SELECT Id, LastName FROM Contacts WHERE ... ORDER BY ... LIMIT n)`.
    mutating func childPlan(_ inner: QueryAST, parent: ObjectSchema) throws(SalesforceError) -> Column {
        guard let relationship = parent.childRelationship(named: inner.from.text),
            let t = org.schemaIndexByName[relationship.childSObject.lowercased()],
            let foreignKey = org.schemas[t].layout.position(of: relationship.field)
        else {
            throw located(
                .invalidType(
                    "Didn't understand relationship '\(inner.from.text)' in FROM part of query call. If you are attempting to use a custom relationship, be sure to append the '__r' after the custom relationship name. Please reference your WSDL or the describe call for the appropriate names."
                ), at: inner.from.offset)
        }
        if !inner.groupBy.isEmpty || inner.having != nil {
            throw malformed("GROUP BY is not supported in child relationship queries", at: inner.from.offset)
        }
        if inner.offset != nil {
            throw malformed("OFFSET is not supported in child relationship queries", at: inner.offsetOffset)
        }
        try checkLimits(inner)
        if let condition = inner.whereClause { try checkSemiJoins(condition, insideSemiJoin: false) }
        let scope = Scope(table: t, alias: inner.alias)
        let columns = try selectColumns(inner, scope, allowSubqueries: false)
        let filter = try inner.whereClause.map { c throws(SalesforceError) in try rowPredicate(c, scope) }
        let order = try inner.orderBy.map { item throws(SalesforceError) in try sortKey(item, scope) }
        let childSchema = org.schemas[t]
        let plan = ChildPlan(
            table: t, objectName: childSchema.name, foreignKey: foreignKey,
            filter: filter, order: order, limit: inner.limit, columns: columns)
        return .children(key: relationship.relationshipName, plan: plan)
    }
}
