/// A query resolved against the org's schemas, ready to run many times (cached by text).
/// Predicates are closures over compiled literals; the per-run state comes in `EvalContext`.
final class Plan: Sendable {
    let table: Int
    let objectName: String
    let filter: RowPredicate?
    /// AND-ed equality conjuncts an equality index can answer (see `IndexPlanner`).
    let indexHints: [IndexHint]
    let order: [SortKey]
    let limit: Int?
    let offset: Int?
    let output: Output
    /// Semi- and anti-join subqueries, evaluated once per run; predicates refer to them by index.
    let semiJoins: [SemiJoin]

    enum Output: Sendable {
        case records([Column])
        /// `SELECT COUNT() ...`: only `totalSize`.
        case countOnly
        case aggregate(AggregatePlan)
    }

    init(
        table: Int, objectName: String, filter: RowPredicate?, indexHints: [IndexHint], order: [SortKey], limit: Int?,
        offset: Int?, output: Output, semiJoins: [SemiJoin]
    ) {
        self.table = table
        self.objectName = objectName
        self.filter = filter
        self.indexHints = indexHints
        self.order = order
        self.limit = limit
        self.offset = offset
        self.output = output
        self.semiJoins = semiJoins
    }
}

typealias RowPredicate = @Sendable (SObjectRecord, EvalContext) -> Bool
typealias ValueTest = @Sendable (JSONValue) -> Bool

/// How to read a (possibly parent) field from a row.
struct FieldAccessor: Sendable {
    enum Final: Sendable {
        case position(Int)
        /// After a polymorphic hop the target type varies: look the field up by name.
        case name(String)
        /// `Who.Type`: the target's object name.
        case typeName
    }
    /// Positions of the reference fields followed, one per relationship.
    var hops: [Int]
    var final: Final
    /// Schema of the final field (type decides comparisons and formatting).
    var field: FieldSchema

    var isLocal: Bool { hops.isEmpty }
}

/// One output column of a record row.
indirect enum Column: Sendable {
    /// A value read from the current record (a plain field, or after a polymorphic hop a field
    /// looked up by name), or through parent hops when flattened under an alias.
    case value(key: String, accessor: FieldAccessor, format: FormatKind?)
    /// A parent object: `Owner` → `{"attributes":..., "Name": ...}` or null.
    case parent(key: String, hop: Int, polymorphic: Bool, children: [Column])
    /// A child subquery: `{"totalSize","done","records"}` or null when empty.
    case children(key: String, plan: ChildPlan)

    var key: String {
        switch self {
        case .value(let k, _, _), .parent(let k, _, _, _), .children(let k, _): return k
        }
    }
}

enum FormatKind: Sendable { case toLabel, format }

/// A parent-to-child subquery: rows of `table` whose `foreignKey` is the parent's id.
struct ChildPlan: Sendable {
    var table: Int
    var objectName: String
    var foreignKey: Int
    var filter: RowPredicate?
    var order: [SortKey]
    var limit: Int?
    var columns: [Column]
}

struct SortKey: Sendable {
    enum Source: Sendable {
        case field(FieldAccessor)
        /// In aggregate queries: a group-by key or an aggregate, by index.
        case groupKey(Int)
        case aggregate(Int)
    }
    var source: Source
    var descending: Bool
    var nullsFirst: Bool
}

struct IndexHint: Sendable {
    var position: Int
    /// Normalized keys (`EqualityIndex.key`): the row must have one of them.
    var keys: [String]
    /// For the Id field: normalized key → the canonical 18-character id (for the id map).
    var exactIds: [String: String] = [:]
}

struct SemiJoin: Sendable {
    var plan: Plan
    var accessor: FieldAccessor
}

/// GROUP BY / aggregate function queries.
struct AggregatePlan: Sendable {
    var groupKeys: [FieldAccessor]
    var aggregates: [AggregateSpec]
    var items: [Item]
    var having: GroupPredicate?
    var order: [SortKey]
    /// No GROUP BY: exactly one row, even over no records.
    var single: Bool

    enum Item: Sendable {
        case group(key: String, index: Int, format: FormatKind?)
        case aggregate(key: String, index: Int, format: FormatKind?)
    }
}

struct AggregateSpec: Sendable, Equatable {
    var function: AggregateFunction
    /// nil only for COUNT() in HAVING.
    var accessor: FieldAccessorKey?
    var isInteger: Bool

    static func == (a: AggregateSpec, b: AggregateSpec) -> Bool { a.function == b.function && a.accessor == b.accessor }
}

/// A field accessor with a comparable identity (to share one aggregate between SELECT, HAVING and ORDER BY).
struct FieldAccessorKey: Sendable, Equatable {
    var text: String
    var accessor: FieldAccessor
    static func == (a: FieldAccessorKey, b: FieldAccessorKey) -> Bool { a.text == b.text }
}

typealias GroupPredicate = @Sendable (GroupRow) -> Bool

/// One group of an aggregate query while it is being evaluated.
struct GroupRow: Sendable {
    var keys: [JSONValue]
    var aggregates: [JSONValue]
}
