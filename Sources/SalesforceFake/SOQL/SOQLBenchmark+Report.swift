import Foundation

extension SOQLBenchmark {
    /// Engine-only figures for one org, for a `bench` subcommand to print: median of `runs` timed
    /// passes over `queries` with indexes, one pass of up to 200 of them as full scans (the
    /// baseline), and `ORDER BY Name LIMIT 200` over every account. Wall-clock times of the
    /// current process; run on a quiet machine and quote medians.
    public static func report(org: Org, queries: [String], runs: Int = 3) throws(SalesforceError) -> [String] {
        guard !queries.isEmpty else { return ["no queries"] }
        _ = try run(org: org, queries: Array(queries.prefix(500)))  // builds the indexes, fills the plan cache
        var passes: [Result] = []
        for _ in 0..<max(1, runs) { passes.append(try run(org: org, queries: queries)) }
        let median = passes.sorted { $0.queriesPerSecond < $1.queriesPerSecond }[passes.count / 2]
        let baseline = try run(org: org, queries: Array(queries.prefix(200)), useIndexes: false)
        let clock = ContinuousClock()
        let start = clock.now
        for _ in 0..<3 {
            _ = try SOQL.execute(
                "SELECT Id, Name FROM Account ORDER BY Name LIMIT 200", in: org, apiVersion: "59.0",
                includeDeleted: false)
        }
        let sort = clock.now - start
        let sortMillis = (Double(sort.components.seconds) * 1e3 + Double(sort.components.attoseconds) / 1e15) / 3
        func fmt(_ x: Double) -> String { String(format: "%.1f", x) }
        return [
            "accounts: \(org.count(of: "Account")), contacts: \(org.count(of: "Contact")), queries per pass: \(queries.count)",
            "indexed (median of \(passes.count)): \(Int(median.queriesPerSecond)) queries/s, \(fmt(median.microsecondsPerQuery)) µs/query, \(median.rowsReturned / queries.count) rows/query",
            "full scan baseline: \(Int(baseline.queriesPerSecond)) queries/s, \(fmt(baseline.microsecondsPerQuery)) µs/query",
            "ORDER BY Name LIMIT 200 over all accounts: \(fmt(sortMillis)) ms",
        ]
    }
}
