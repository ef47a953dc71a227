import SalesforceFake

/// `whalesim bench salesforce`'s measurement: query throughput and latency of the fake Salesforce
/// over real HTTP keep-alive connections, and the memory a generated org takes. The org is
/// generated first (``generate(_:template:output:)``), the servers measured (`+Measure`), then the
/// figures printed and judged against the thresholds (`+Report`). Each line it prints goes to
/// `output`, in order.
package struct SalesforceBench: Sendable {
    /// What to measure: the command's options, checked by the command.
    package struct Options: Sendable {
        /// Accounts in the generated org (with contacts, leads, users, tasks).
        package var accounts: Int
        /// Keep-alive HTTP connections sending queries concurrently.
        package var connections: Int
        /// Seconds per measured run.
        package var seconds: Double
        /// Measured runs (the median is reported).
        package var runs: Int
        /// Sforce-Query-Options batchSize.
        package var batchSize: Int
        /// Seed of the generated org and of the query mix.
        package var seed: UInt64
        /// Thresholds: queries per second, p99 in ms, the org's resident MB.
        package var minQPS: Double, maxP99: Double, maxOrgMB: Double

        package init(
            accounts: Int, connections: Int, seconds: Double, runs: Int, batchSize: Int, seed: UInt64,
            minQPS: Double, maxP99: Double, maxOrgMB: Double
        ) {
            self.accounts = accounts
            self.connections = connections
            self.seconds = seconds
            self.runs = runs
            self.batchSize = batchSize
            self.seed = seed
            self.minQPS = minQPS
            self.maxP99 = maxP99
            self.maxOrgMB = maxOrgMB
        }
    }

    package let options: Options
    let org: Org
    /// Resident MB before and after generating the org, and how long generating took.
    let rssBefore: Double, rssAfter: Double, loadTime: Duration
    /// Where each printed line goes (the command passes `print`).
    package let output: @Sendable (String) -> Void

    /// Generates the org, measuring the resident memory it adds and the time it takes. `template`
    /// gives the template org's directory; it is asked inside the measured window, as the command
    /// always did (outside the project it writes the built-in org to a temporary directory), so the
    /// figures stay comparable. Throws a ``BenchError`` naming `--template` for a template that
    /// does not generate, and whatever `template` throws.
    package static func generate(
        _ options: Options, template: () throws -> String, output: @escaping @Sendable (String) -> Void
    ) throws -> SalesforceBench {
        let rssBefore = ProcessMemory.residentMB()
        let loadStart = ContinuousClock.now
        let org = try BenchOrg.generate(seed: options.seed, accounts: options.accounts, template: try template())
        let loadTime = ContinuousClock.now - loadStart
        let rssAfter = ProcessMemory.residentMB()
        return SalesforceBench(
            options: options, org: org, rssBefore: rssBefore, rssAfter: rssAfter, loadTime: loadTime,
            output: output)
    }
}
