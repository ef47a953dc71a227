/// The parsed, not yet resolved, form of a SOQL query. Names keep the case the query used;
/// `offset`s point into the query text for error messages.
struct QueryAST: Sendable {
    var select: [SelectItem]
    var from: Name
    var alias: String?
    var whereClause: Condition?
    var groupBy: [Path] = []
    var having: Condition?
    var orderBy: [OrderItem] = []
    var limit: Int?
    var offset: Int?
    /// Offset of the LIMIT / OFFSET keywords (for errors about their values).
    var limitOffset = 0
    var offsetOffset = 0
}

/// An identifier as written, with where it was written.
struct Name: Sendable, Equatable {
    var text: String
    var offset: Int
}

/// A dotted field path such as `Owner.Name` (one segment for a plain field).
struct Path: Sendable, Equatable {
    var segments: [Name]
    var offset: Int { segments[0].offset }
    var text: String { segments.map(\.text).joined(separator: ".") }
}

enum AggregateFunction: String, Sendable {
    case count = "COUNT", countDistinct = "COUNT_DISTINCT", sum = "SUM", avg = "AVG", min = "MIN", max = "MAX"
}

enum FieldsScope: String, Sendable { case all = "ALL", standard = "STANDARD", custom = "CUSTOM" }

enum SelectItem: Sendable {
    case field(Path)
    /// `COUNT()` when the path is nil.
    case aggregate(AggregateFunction, Path?, alias: String?, offset: Int)
    case toLabel(Path, alias: String?)
    case format(Path, alias: String?)
    /// `FORMAT(SUM(Amount))` and the like.
    case formatAggregate(AggregateFunction, Path, alias: String?, offset: Int)
    case fields(FieldsScope, offset: Int)
    case subquery(QueryAST, offset: Int)
}

enum ComparisonOperator: String, Sendable {
    case equal = "=", notEqual = "!=", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
}

/// A literal on the right of a comparison.
enum Literal: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(String)
    case string(value: String, raw: String)
    case date(Int)
    case dateTime(Int)
    /// `TODAY`, `LAST_N_DAYS:7`... (the name upper-cased, n when the literal takes one).
    case dateLiteral(String, Int?)
}

/// The left side of a condition: a field path, or in HAVING an aggregate.
enum Operand: Sendable {
    case path(Path)
    case aggregate(AggregateFunction, Path?, offset: Int)

    var offset: Int {
        switch self {
        case .path(let p): return p.offset
        case .aggregate(_, _, let offset): return offset
        }
    }
}

indirect enum Condition: Sendable {
    case and([Condition])
    case or([Condition])
    case not(Condition)
    case compare(Operand, ComparisonOperator, Literal, offset: Int)
    case like(Operand, Literal, offset: Int)
    case inList(Operand, [Literal], negated: Bool, offset: Int)
    case inQuery(Operand, QueryAST, negated: Bool, offset: Int)
    case includes(Operand, [Literal], excludes: Bool, offset: Int)
}

struct OrderItem: Sendable {
    enum Key: Sendable {
        case path(Path)
        case aggregate(AggregateFunction, Path?, offset: Int)
    }
    var key: Key
    var descending: Bool
    /// nil: the default (nulls first when ascending, last when descending).
    var nullsFirst: Bool?
}
