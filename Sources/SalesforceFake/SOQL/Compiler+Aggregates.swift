extension Compiler {
    /// GROUP BY and aggregate functions: every plain SELECT field must be grouped; unaliased
    /// aggregates are named expr0, expr1... in SELECT order; grouped parent paths are keyed by
    /// their last segment (`Owner.Name` → `Name`), as Salesforce's AggregateResult does.
    mutating func aggregatePlan(_ ast: QueryAST, _ scope: Scope) throws(SalesforceError) -> AggregatePlan {
        var groupKeys: [FieldAccessor] = []
        var groupNames: [String] = []
        for path in ast.groupBy {
            let resolved = try resolve(path, scope)
            guard resolved.accessor.field.groupable else {
                throw malformed(
                    "field '\(resolved.accessor.field.name)' can not be grouped in a query call", at: path.offset)
            }
            guard !groupNames.contains(resolved.canonical.lowercased()) else {
                throw malformed("duplicate field in GROUP BY: \(resolved.canonical)", at: path.offset)
            }
            groupKeys.append(resolved.accessor)
            groupNames.append(resolved.canonical.lowercased())
        }
        var aggregates: [AggregateSpec] = []
        var items: [AggregatePlan.Item] = []
        var exprCounter = 0
        var keys: Set<String> = []
        func addKey(_ key: String, _ offset: Int) throws(SalesforceError) {
            guard keys.insert(key.lowercased()).inserted else { throw malformed("duplicate alias: \(key)", at: offset) }
        }
        for item in ast.select {
            switch item {
            case .field(let path), .toLabel(let path, _), .format(let path, _):
                let resolved = try resolve(path, scope)
                guard let index = groupNames.firstIndex(of: resolved.canonical.lowercased()) else {
                    throw malformed("Field must be grouped or aggregated: \(resolved.canonical)", at: path.offset)
                }
                var key = resolved.fieldName
                var format: FormatKind?
                if case .toLabel(_, let alias) = item { key = alias ?? key; format = .toLabel }
                if case .format(_, let alias) = item { key = alias ?? key; format = .format }
                try addKey(key, path.offset)
                items.append(.group(key: key, index: index, format: format))
            case .aggregate(let fn, let path, let alias, let offset):
                let index = try aggregateIndex(fn, path, scope, offset, &aggregates)
                let key = alias ?? "expr\(exprCounter)"
                if alias == nil { exprCounter += 1 }
                try addKey(key, offset)
                items.append(.aggregate(key: key, index: index, format: nil))
            case .formatAggregate(let fn, let path, let alias, let offset):
                let index = try aggregateIndex(fn, path, scope, offset, &aggregates)
                let key = alias ?? "expr\(exprCounter)"
                if alias == nil { exprCounter += 1 }
                try addKey(key, offset)
                items.append(.aggregate(key: key, index: index, format: .format))
            case .fields(_, let offset), .subquery(_, let offset):
                throw malformed("Aggregate queries cannot select FIELDS() or child relationships", at: offset)
            }
        }
        var having: GroupPredicate?
        if let condition = ast.having {
            having = try groupPredicate(condition, scope, groupNames, groupKeys, &aggregates)
        }
        var order: [SortKey] = []
        for item in ast.orderBy {
            let source: SortKey.Source
            switch item.key {
            case .path(let path):
                let resolved = try resolve(path, scope)
                guard let index = groupNames.firstIndex(of: resolved.canonical.lowercased()) else {
                    throw malformed(
                        "Ordered field must be grouped or aggregated: \(resolved.canonical)", at: path.offset)
                }
                source = .groupKey(index)
            case .aggregate(let fn, let path, let offset):
                source = .aggregate(try aggregateIndex(fn, path, scope, offset, &aggregates))
            }
            order.append(
                SortKey(source: source, descending: item.descending, nullsFirst: item.nullsFirst ?? !item.descending))
        }
        return AggregatePlan(
            groupKeys: groupKeys, aggregates: aggregates, items: items, having: having, order: order,
            single: groupKeys.isEmpty)
    }

    func aggregateIndex(
        _ fn: AggregateFunction, _ path: Path?, _ scope: Scope, _ offset: Int, _ aggregates: inout [AggregateSpec]
    ) throws(SalesforceError) -> Int {
        var key: FieldAccessorKey?
        var isInteger = true
        if let path {
            let resolved = try resolve(path, scope)
            let type = resolved.accessor.field.type
            switch fn {
            case .sum, .avg:
                guard type.isNumeric else {
                    throw located(
                        .invalidField("field \(resolved.canonical) does not support aggregate operator \(fn.rawValue)"),
                        at: path.offset)
                }
                isInteger = fn == .sum && type == .int
            case .min, .max:
                guard type != .boolean, type != .multipicklist, type != .textarea else {
                    throw located(
                        .invalidField("field \(resolved.canonical) does not support aggregate operator \(fn.rawValue)"),
                        at: path.offset)
                }
                isInteger = false
            case .count, .countDistinct:
                guard type != .textarea, type != .multipicklist else {
                    throw located(
                        .invalidField("field \(resolved.canonical) does not support aggregate operator \(fn.rawValue)"),
                        at: path.offset)
                }
            }
            key = FieldAccessorKey(text: resolved.canonical.lowercased(), accessor: resolved.accessor)
        } else if fn != .count {
            throw malformed("\(fn.rawValue) needs a field", at: offset)
        }
        let spec = AggregateSpec(function: fn, accessor: key, isInteger: isInteger)
        if let existing = aggregates.firstIndex(of: spec) { return existing }
        aggregates.append(spec)
        return aggregates.count - 1
    }

    /// HAVING over grouped fields and aggregates.
    func groupPredicate(
        _ condition: Condition, _ scope: Scope, _ groupNames: [String], _ groupKeys: [FieldAccessor],
        _ aggregates: inout [AggregateSpec]
    ) throws(SalesforceError) -> GroupPredicate {
        switch condition {
        case .and(let items), .or(let items):
            var parts: [GroupPredicate] = []
            for item in items { parts.append(try groupPredicate(item, scope, groupNames, groupKeys, &aggregates)) }
            let all = parts
            if case .and = condition { return { g in all.allSatisfy { $0(g) } } }
            return { g in all.contains { $0(g) } }
        case .not(let inner):
            let p = try groupPredicate(inner, scope, groupNames, groupKeys, &aggregates)
            return { g in !p(g) }
        case .inQuery(_, _, _, let offset):
            throw malformed("Semi-joins are not supported in HAVING", at: offset)
        case .compare(let operand, _, _, _), .like(let operand, _, _), .inList(let operand, _, _, _),
            .includes(let operand, _, _, _):
            switch operand {
            case .path(let path):
                let resolved = try resolve(path, scope)
                guard let index = groupNames.firstIndex(of: resolved.canonical.lowercased()) else {
                    throw malformed("Field must be grouped or aggregated: \(resolved.canonical)", at: path.offset)
                }
                let test = try valueTest(condition, field: groupKeys[index].field)
                return { g in test(g.keys[index]) }
            case .aggregate(let fn, let path, let offset):
                let index = try aggregateIndex(fn, path, scope, offset, &aggregates)
                let spec = aggregates[index]
                let field: FieldSchema
                switch fn {
                case .count, .countDistinct: field = FieldSchema(name: "expr", type: .int)
                case .sum, .avg: field = FieldSchema(name: "expr", type: .double)
                case .min, .max: field = spec.accessor!.accessor.field
                }
                let test = try valueTest(condition, field: field)
                return { g in test(g.aggregates[index]) }
            }
        }
    }
}
