import Foundation
import WhaleCore

/// A small in-process benchmark of the engine alone (no HTTP): the filtered Account query the
/// Whaler client sends, with owner / industry / state drawn from the org's own data so most
/// queries return rows. `whalesim bench salesforce` measures end to end; this isolates the engine.
///
/// ```swift
/// let org = try OrgGenerator.generate(seed: 1, accounts: 100_000, template: small)
/// let result = try SOQLBenchmark.run(org: org, queries: SOQLBenchmark.filteredAccountQueries(org: org, count: 20_000, seed: 7))
/// print(result.queriesPerSecond)
/// ```
public enum SOQLBenchmark {
    public struct Result: Sendable {
        public var queries: Int
        public var seconds: Double
        public var rowsReturned: Int
        /// JSON bytes the results serialized to (the serialization is part of the timing).
        public var bytesSerialized: Int = 0
        public var queriesPerSecond: Double { Double(queries) / seconds }
        public var microsecondsPerQuery: Double { seconds * 1e6 / Double(queries) }
    }

    /// `SELECT ... FROM Account WHERE (NOT type like 'Customer%') AND (OwnerId = ...) AND
    /// (Industry = ... OR Industry = ...) AND (BillingState = ...)`, parameters from random accounts.
    public static func filteredAccountQueries(org: Org, count: Int, seed: UInt64) -> [String] {
        let accounts = org.records(of: "Account")
        guard !accounts.isEmpty else { return [] }
        var rng = SplitMix64(seed: seed)
        return (0..<count).map { _ in
            let a = accounts[rng.below(accounts.count)]
            let owner = a["OwnerId"]?.stringValue ?? ""
            let industry = a["Industry"]?.stringValue ?? "Technology"
            let state = a["BillingState"]?.stringValue ?? "CA"
            return """
                SELECT id, name, type, industry, annualRevenue, billingCity, billingState, phone, website, \
                numberOfEmployees, ownerId, description from Account WHERE (NOT type like 'Customer%') \
                AND (OwnerId = '\(owner)') AND (Industry = '\(industry)' OR Industry = 'Finance') \
                AND (BillingState = '\(state)')
                """
        }
    }

    /// Runs every query once (serializing each result, as the API would) and times the whole batch.
    /// `useIndexes: false` scans every row (the baseline the indexes are measured against).
    public static func run(org: Org, queries: [String], apiVersion: String = "59.0", useIndexes: Bool = true)
        throws(SalesforceError) -> Result
    {
        let clock = ContinuousClock()
        var rows = 0
        var bytes = 0
        let start = clock.now
        for q in queries {
            let result = try SOQL.execute(
                q, in: org, apiVersion: apiVersion, includeDeleted: false, useIndexes: useIndexes)
            rows += result.records.count
            bytes += JSONValue.array(result.records).serializedBytes().count
        }
        let elapsed = clock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return Result(queries: queries.count, seconds: seconds, rowsReturned: rows, bytesSerialized: bytes)
    }
}
