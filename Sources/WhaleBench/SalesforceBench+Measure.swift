import SalesforceFake
import SalesforceHTTP

extension SalesforceBench {
    /// What ``measure()`` found, for ``report(_:)``.
    package struct Figures: Sendable {
        /// Distinct queries in the mix.
        var queries: Int
        /// Queries per second through the handler in this thread, result cache off.
        var inProcess: Double
        /// Over HTTP with the result cache off.
        var uncached: HTTPLoadRun.Result
        /// Over HTTP as configured by default: the no-SOQL baseline, then each measured run.
        var baseline: HTTPLoadRun.Result, results: [HTTPLoadRun.Result]
        /// The default server's result cache over its whole life.
        var cacheStatistics: (hits: Int, misses: Int)
    }

    /// The handler in-process, then over HTTP with the result cache off, then as configured by default.
    package func measure() async throws -> Figures {
        let seed = options.seed, batchSize = options.batchSize, connections = options.connections
        let seconds = options.seconds, runs = options.runs
        let queries = BenchOrg.queries(org: org, seed: seed, count: 512)

        // In-process, one thread, no sockets, result cache off: what the engine plus handler cost.
        let bare = FakeSalesforce(org: org, config: FakeSalesforceConfig(seed: seed, queryResultCacheCapacity: 0))
        let bareToken = try BenchOrg.login(bare, org: org)
        let inProcess = BenchOrg.inProcessRate(
            bare, token: bareToken, targets: queries, batchSize: batchSize, seconds: min(2, seconds))

        // Over HTTP with the result cache off (every query runs the engine), then as configured by default.
        let uncached = try await BenchOrg.serve(
            org: org, config: FakeSalesforceConfig(seed: seed, queryResultCacheCapacity: 0)
        ) { port, token in
            let headers = [("Authorization", "Bearer \(token)"), ("Sforce-Query-Options", "batchSize=\(batchSize)")]
            return [
                try await HTTPLoadRun.measure(
                    port: port, connections: connections, seconds: seconds, targets: queries, headers: headers)
            ]
        }[0]
        var cacheStatistics = (hits: 0, misses: 0)
        // The first element is the no-SOQL baseline, the rest the measured runs.
        var results = try await BenchOrg.serve(
            org: org, config: FakeSalesforceConfig(seed: seed), statistics: { cacheStatistics = $0 }
        ) { port, token in
            let headers = [("Authorization", "Bearer \(token)"), ("Sforce-Query-Options", "batchSize=\(batchSize)")]
            // Warm-up (connections, lazily built indexes), the no-SOQL baseline, then the measured runs.
            _ = try await HTTPLoadRun.measure(
                port: port, connections: connections, seconds: min(1, seconds), targets: queries, headers: headers)
            var results = [
                try await HTTPLoadRun.measure(
                    port: port, connections: connections, seconds: seconds, targets: ["/services/data/"], headers: [])
            ]
            for _ in 0..<runs {
                results.append(
                    try await HTTPLoadRun.measure(
                        port: port, connections: connections, seconds: seconds, targets: queries, headers: headers))
            }
            return results
        }
        let baseline = results.removeFirst()
        return Figures(
            queries: queries.count, inProcess: inProcess, uncached: uncached, baseline: baseline, results: results,
            cacheStatistics: cacheStatistics)
    }
}
