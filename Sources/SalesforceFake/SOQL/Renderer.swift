/// Turns rows into Salesforce-shaped JSON: `attributes` first, then columns in SELECT order,
/// parents nested (or null), child subqueries as nested query results (or null when empty).
struct Renderer {
    let ctx: EvalContext

    func record(_ row: SObjectRecord, _ columns: [Column]) -> JSONValue {
        var pairs: [(String, JSONValue)] = []
        pairs.reserveCapacity(columns.count + 1)
        pairs.append(("attributes", SObjectRecord.attributes(type: row.type, id: row.id, apiVersion: ctx.apiVersion)))
        for column in columns { pairs.append((column.key, value(column, row))) }
        return .object(pairs)
    }

    func value(_ column: Column, _ row: SObjectRecord) -> JSONValue {
        switch column {
        case .value(_, let accessor, let format):
            let v = ctx.value(accessor, row)
            return format == .format ? Formatting.format(v, accessor.field, ctx.org.settings) : v
        case .parent(_, let hop, let polymorphic, let children):
            guard case .string(let id) = row.values[hop], let parent = ctx.record(id: id) else { return .null }
            var pairs: [(String, JSONValue)] = []
            let url = SObjectRecord.attributes(type: parent.type, id: parent.id, apiVersion: ctx.apiVersion)["url"]!
            // Salesforce types the target of a polymorphic lookup as the "Name" pseudo-object.
            pairs.append(
                ("attributes", .object([("type", .string(polymorphic ? "Name" : parent.type)), ("url", url)])))
            for child in children { pairs.append((child.key, value(child, parent))) }
            return .object(pairs)
        case .children(_, let plan):
            let records = childRecords(plan, parent: row)
            guard !records.isEmpty else { return .null }
            return .object([("totalSize", .int(records.count)), ("done", .bool(true)), ("records", .array(records))])
        }
    }

    func childRecords(_ plan: ChildPlan, parent: SObjectRecord) -> [JSONValue] {
        let index = ctx.index(table: plan.table, position: plan.foreignKey)
        guard let rowNumbers = index.rowsByKey[parent.id.lowercased()] else { return [] }
        let table = ctx.state.tables[plan.table]
        var rows: [SObjectRecord] = []
        for n in rowNumbers {
            let row = table.rows[Int(n)]
            if !ctx.includeDeleted, case .bool(true) = row.values[1] { continue }
            if let filter = plan.filter, !filter(row, ctx) { continue }
            rows.append(row)
        }
        if !plan.order.isEmpty { rows = Ordering.sort(rows, by: plan.order, keep: plan.limit, ctx: ctx) }
        if let limit = plan.limit, rows.count > limit { rows.removeLast(rows.count - limit) }
        return rows.map { record($0, plan.columns) }
    }
}
