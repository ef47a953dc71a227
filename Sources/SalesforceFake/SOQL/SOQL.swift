/// The SOQL engine: parses a query, resolves it against the org's schemas and evaluates it over
/// the in-memory records. Parsed queries are cached by text.
///
/// ```swift
/// let result = try SOQL.execute("SELECT Id, Name FROM Account WHERE BillingState = 'CA'",
///                               in: org, apiVersion: "59.0", includeDeleted: false)
/// result.totalSize   // every matching row; the API pages `result.records`
/// ```
public enum SOQL {
    /// Runs `query`; `includeDeleted` is true for `/queryAll`. Returns every row (not paged).
    /// Throws Salesforce's error for a bad query: `MALFORMED_QUERY` (syntax, unsupported clause),
    /// `INVALID_FIELD`, `INVALID_TYPE`, `INVALID_QUERY_FILTER_OPERATOR` (bad id literal),
    /// `NUMBER_OUTSIDE_VALID_RANGE` (OFFSET above the org's cap), with the message laid out as
    /// Salesforce does (query line, caret, `ERROR at Row:r:Column:c`, then the text).
    public static func execute(_ query: String, in org: Org, apiVersion: String, includeDeleted: Bool)
        throws(SalesforceError) -> SOQLResult
    {
        try execute(query, in: org, apiVersion: apiVersion, includeDeleted: includeDeleted, useIndexes: true)
    }

    /// `useIndexes: false` forces full scans (the benchmark's baseline).
    static func execute(_ query: String, in org: Org, apiVersion: String, includeDeleted: Bool, useIndexes: Bool)
        throws(SalesforceError) -> SOQLResult
    {
        let plan = try org.compiledQuery(query)
        var evaluator = Evaluator(
            org: org, state: org.snapshot(), apiVersion: apiVersion, includeDeleted: includeDeleted)
        evaluator.useIndexes = useIndexes
        return try evaluator.run(plan)
    }
}

/// The full answer to a query: the API pages `records` and sets `done` / `nextRecordsUrl`.
public struct SOQLResult: Sendable {
    /// Matching rows; for `COUNT()` the count (and `records` is empty).
    public var totalSize: Int
    /// Every row, each an ordered object with `attributes` first.
    public var records: [JSONValue]
    /// Canonical name of the FROM object (`AggregateResult` rows still report the FROM object here).
    public var objectType: String
    /// True for GROUP BY / aggregate queries (rows are `AggregateResult`) and for `COUNT()`
    /// (whose `records` is empty and whose count is `totalSize`).
    public var isAggregate: Bool

    public init(totalSize: Int, records: [JSONValue], objectType: String, isAggregate: Bool) {
        self.totalSize = totalSize
        self.records = records
        self.objectType = objectType
        self.isAggregate = isAggregate
    }
}
