import SalesforceFake
import SalesforceHTTP
import WhaleLoad

/// `whalesim bench http`'s measurement: the load runner's two HTTP executors (libcurl multi,
/// AsyncHTTPClient) against the fake Salesforce in this process, over HTTP and HTTPS: closed-loop
/// workers sending SOQL queries, runs alternating between executors, medians and the curl/AHC
/// ratios. One scheme's runs: `+Scheme`; the closed loop: `+ClosedLoop`; the sign-in: `+Login`.
/// Each line it prints goes to `output`, in order.
package struct HTTPBench: Sendable {
    /// What to measure: the command's options, checked by the command.
    package struct Options: Sendable {
        /// Closed-loop workers, each with one request in flight.
        package var concurrency: Int
        /// Seconds per measured run.
        package var seconds: Double
        /// Measured runs per executor and scheme (the median is reported).
        package var runs: Int
        /// `http`, `https` or both, in that order.
        package var schemes: [String]
        /// Executors to measure, each once, in the order given.
        package var kinds: [HTTPClientKind]
        /// Seed of the fake (and of the query mix the command draws).
        package var seed: UInt64
        /// Per-request timeout.
        package var timeout: Duration

        package init(
            concurrency: Int, seconds: Double, runs: Int, schemes: [String], kinds: [HTTPClientKind], seed: UInt64,
            timeout: Duration
        ) {
            self.concurrency = concurrency
            self.seconds = seconds
            self.runs = runs
            self.schemes = schemes
            self.kinds = kinds
            self.seed = seed
            self.timeout = timeout
        }
    }

    package let options: Options
    let org: Org
    let queries: [String]
    let server: FakeSalesforceServer
    let executors: [HTTPClientKind: any HTTPExecutor]
    /// Where each printed line goes (the command passes `print`).
    package let output: @Sendable (String) -> Void

    /// Starts the fake Salesforce on `org` and one executor of each kind; nothing is printed yet.
    /// `queries`: the query paths the workers send, in turn. Throws what the server's start threw.
    package static func start(
        _ options: Options, org: Org, queries: [String], output: @escaping @Sendable (String) -> Void
    ) async throws -> HTTPBench {
        let server = try await FakeSalesforceServer.start(org: org, config: FakeSalesforceConfig(seed: options.seed))
        var executors: [HTTPClientKind: any HTTPExecutor] = [:]
        for kind in options.kinds {
            executors[kind] = HTTPExecutors.make(
                kind, caFile: server.caFile.path, maxConnections: options.concurrency)
        }
        return HTTPBench(
            options: options, org: org, queries: queries, server: server, executors: executors, output: output)
    }

    /// Every scheme in turn, then the executors and the server stopped, whether it got through or
    /// threw. Returns how many requests failed or were not 200.
    package func run() async throws -> Int {
        output(
            "org: \(org.settings.name), \(org.records(of: "Account").count) accounts, \(queries.count) distinct queries; server and clients in this process"
        )
        var failed = 0
        do {
            for scheme in options.schemes { failed += try await measure(scheme: scheme) }
        } catch {
            await stop()
            throw error
        }
        await stop()
        return failed
    }

    private func stop() async {
        for executor in executors.values { await executor.shutdown() }
        await server.stop()
    }
}
