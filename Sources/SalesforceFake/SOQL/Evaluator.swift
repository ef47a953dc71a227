/// Runs a plan over a snapshot: WHERE → ORDER BY → OFFSET → LIMIT, then renders the rows.
struct Evaluator {
    let ctx: EvalContext
    var useIndexes = true

    init(org: Org, state: OrgState, apiVersion: String, includeDeleted: Bool) {
        ctx = EvalContext(org: org, state: state, apiVersion: apiVersion, includeDeleted: includeDeleted)
    }

    /// Big tables use equality indexes for AND-ed equality filters; small ones are scanned.
    static let indexThreshold = 512

    func run(_ plan: Plan) throws(SalesforceError) -> SOQLResult {
        ctx.semiJoinSets = plan.semiJoins.map { semiJoin in
            var set: Set<String> = []
            for row in matchingRows(semiJoin.plan) {
                if let key = Values.key(ctx.value(semiJoin.accessor, row)) { set.insert(key) }
            }
            return set
        }
        var rows = matchingRows(plan)
        switch plan.output {
        case .countOnly:
            let afterOffset = max(0, rows.count - (plan.offset ?? 0))
            return SOQLResult(
                totalSize: min(afterOffset, plan.limit ?? Int.max), records: [], objectType: plan.objectName,
                isAggregate: true)
        case .aggregate(let aggregate):
            let records = Aggregation(ctx: ctx, plan: aggregate).rows(rows, offset: plan.offset, limit: plan.limit)
            return SOQLResult(
                totalSize: records.count, records: records, objectType: plan.objectName, isAggregate: true)
        case .records(let columns):
            if !plan.order.isEmpty {
                let keep = plan.limit.map { $0 + (plan.offset ?? 0) }
                rows = Ordering.sort(rows, by: plan.order, keep: keep, ctx: ctx)
            }
            let slice = Evaluator.window(rows.count, offset: plan.offset, limit: plan.limit)
            var records: [JSONValue] = []
            records.reserveCapacity(slice.count)
            let renderer = Renderer(ctx: ctx)
            for i in slice { records.append(renderer.record(rows[i], columns)) }
            return SOQLResult(
                totalSize: records.count, records: records, objectType: plan.objectName, isAggregate: false)
        }
    }

    static func window(_ count: Int, offset: Int?, limit: Int?) -> Range<Int> {
        let start = min(count, offset ?? 0)
        let end = min(count, start + min(limit ?? Int.max, count))
        return start..<end
    }

    /// Rows of the plan's table passing the filter, in insertion order.
    func matchingRows(_ plan: Plan) -> [SObjectRecord] {
        let table = ctx.state.tables[plan.table]
        var result: [SObjectRecord] = []
        let includeDeleted = ctx.includeDeleted
        let deletedAt = 1  // IsDeleted is always the second field (see ObjectSchema.init)
        @inline(__always) func consider(_ row: SObjectRecord) {
            if !includeDeleted, case .bool(true) = row.values[deletedAt] { return }
            if let filter = plan.filter, !filter(row, ctx) { return }
            result.append(row)
        }
        if useIndexes, table.rows.count >= Evaluator.indexThreshold,
            let candidates = candidates(plan, table: plan.table)
        {
            for row in candidates { consider(table.rows[Int(row)]) }
        } else {
            for row in table.rows { consider(row) }
        }
        return result
    }
}
