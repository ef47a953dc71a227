/// GROUP BY evaluation: groups keyed by normalized values (text ignores case, the first value
/// seen is shown), aggregates accumulated per group, then HAVING, ORDER BY (default: group keys
/// ascending, nulls first), OFFSET and LIMIT.
struct Aggregation {
    let ctx: EvalContext
    let plan: AggregatePlan

    private struct Accumulator {
        var count = 0
        var sum = 0.0
        var min: JSONValue = .null
        var max: JSONValue = .null
        var distinct: Set<String> = []
    }

    func rows(_ rows: [SObjectRecord], offset: Int?, limit: Int?) -> [JSONValue] {
        var order: [[String]] = []
        var groups: [[String]: (keys: [JSONValue], acc: [Accumulator])] = [:]
        let emptyAcc = [Accumulator](repeating: Accumulator(), count: plan.aggregates.count)
        if plan.single { order.append([]); groups[[]] = ([], emptyAcc) }
        for row in rows {
            let keyValues = plan.groupKeys.map { ctx.value($0, row) }
            let groupKey = keyValues.map { Values.key($0) ?? "\u{0}" }
            if groups[groupKey] == nil {
                groups[groupKey] = (keyValues, emptyAcc)
                order.append(groupKey)
            }
            for (i, spec) in plan.aggregates.enumerated() {
                let v: JSONValue = spec.accessor.map { ctx.value($0.accessor, row) } ?? .bool(true)
                if v.isNull { continue }
                var acc = groups[groupKey]!.acc[i]
                acc.count += 1
                switch spec.function {
                case .sum, .avg: acc.sum += v.doubleValue ?? 0
                case .min: if acc.min.isNull || Values.compare(v, acc.min) < 0 { acc.min = v }
                case .max: if acc.max.isNull || Values.compare(v, acc.max) > 0 { acc.max = v }
                case .countDistinct: if let k = Values.key(v) { acc.distinct.insert(k) }
                case .count: break
                }
                groups[groupKey]!.acc[i] = acc
            }
        }
        var result: [GroupRow] = order.map { key in
            let group = groups[key]!
            let values: [JSONValue] = zip(plan.aggregates, group.acc).map { spec, acc in
                switch spec.function {
                case .count: return .int(acc.count)
                case .countDistinct: return .int(acc.distinct.count)
                case .sum:
                    return acc.count == 0
                        ? .null : (spec.isInteger && abs(acc.sum) < 9e15 ? .int(Int(acc.sum)) : .double(acc.sum))
                case .avg: return acc.count == 0 ? .null : .double(acc.sum / Double(acc.count))
                case .min: return acc.min
                case .max: return acc.max
                }
            }
            return GroupRow(keys: group.keys, aggregates: values)
        }
        if let having = plan.having { result = result.filter(having) }
        result = sorted(result)
        let window = Evaluator.window(result.count, offset: offset, limit: limit)
        return result[window].map(render)
    }

    private func sorted(_ groups: [GroupRow]) -> [GroupRow] {
        let keys: [SortKey] =
            plan.order.isEmpty
            ? plan.groupKeys.indices.map { SortKey(source: .groupKey($0), descending: false, nullsFirst: true) }
            : plan.order
        guard !keys.isEmpty else { return groups }
        let values: [[JSONValue]] = groups.map { g in
            keys.map { key in
                switch key.source {
                case .groupKey(let i): return g.keys[i]
                case .aggregate(let i): return g.aggregates[i]
                case .field: return .null
                }
            }
        }
        return Ordering.sortedIndices(values, keys).map { groups[$0] }
    }

    private func render(_ group: GroupRow) -> JSONValue {
        var pairs: [(String, JSONValue)] = [("attributes", .object([("type", "AggregateResult")]))]
        for item in plan.items {
            switch item {
            case .group(let key, let index, let format):
                let v = group.keys[index]
                pairs.append(
                    (key, format == .format ? Formatting.format(v, plan.groupKeys[index].field, ctx.org.settings) : v))
            case .aggregate(let key, let index, let format):
                let v = group.aggregates[index]
                if format == .format, let field = plan.aggregates[index].accessor?.accessor.field {
                    pairs.append((key, Formatting.format(v, field, ctx.org.settings)))
                } else {
                    pairs.append((key, v))
                }
            }
        }
        return .object(pairs)
    }
}
