import Foundation
import WhaleLoad

extension HTTPBench {
    /// One scheme: a warm-up of each executor, then `runs` runs alternating which goes first, each
    /// run's line, each executor's medians and, with both, the curl/AHC ratios. Returns how many
    /// requests failed or were not 200.
    func measure(scheme: String) async throws -> Int {
        let kinds = options.kinds, seconds = options.seconds
        let base = scheme == "https" ? server.httpsURL : server.httpURL
        var results: [HTTPClientKind: [HTTPBenchResult]] = [:]
        var failed = 0
        // Logs in through the first executor, as a virtual client would.
        let token = try await Self.login(executors[kinds[0]]!, base: base, org: org)
        let targets = queries.map { base + $0 }
        let headers = [("Authorization", "Bearer \(token)")]
        for kind in kinds {  // warm-up: connections, TLS sessions, the fake's caches
            _ = await Self.closedLoop(
                executors[kind]!, workers: options.concurrency, seconds: min(1, seconds), targets: targets,
                headers: headers, timeout: options.timeout)
        }
        for run in 1...options.runs {
            for kind in (run % 2 == 1 ? kinds : kinds.reversed()) {
                let result = await Self.closedLoop(
                    executors[kind]!, workers: options.concurrency, seconds: seconds, targets: targets,
                    headers: headers, timeout: options.timeout)
                results[kind, default: []].append(result)
                failed += result.errors + result.non200
                output("\(scheme) run \(run) \(kind.rawValue): \(result.line)")
                if let example = result.firstError { output("  first error: \(example)") }
            }
        }
        var medians: [HTTPClientKind: HTTPBenchResult.Medians] = [:]
        for kind in kinds {
            let median = HTTPBenchResult.Medians(results[kind]!)
            medians[kind] = median
            output("\(scheme) median \(kind.rawValue): \(median.line)")
        }
        if let curl = medians[.curl], let ahc = medians[.asyncHTTPClient] {
            output(
                String(
                    format: "%@ curl/AHC: requests/s %.2f×, p50 %.2f×, p99 %.2f×, CPU per 1,000 requests %.2f×",
                    scheme, curl.requestsPerSecond / ahc.requestsPerSecond, curl.p50 / ahc.p50,
                    curl.p99 / ahc.p99,
                    curl.cpuPerThousand / ahc.cpuPerThousand))
        }
        return failed
    }
}
