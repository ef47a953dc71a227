import Foundation

extension SalesforceBench {
    /// How the figures end the command.
    package enum Verdict: Sendable, Equatable {
        /// Every query answered and every threshold met.
        case pass
        /// This many queries failed (checked before the thresholds).
        case failed(Int)
        /// A threshold was breached.
        case thresholdBreached
    }

    /// Prints the figures (the org, the baseline, in-process, uncached, each run, the median
    /// against the targets) and judges them.
    package func report(_ f: Figures) -> Verdict {
        let o = options, results = f.results
        let median = results.sorted { $0.queriesPerSecond < $1.queriesPerSecond }[results.count / 2]
        let p99s = results.map(\.p99Milliseconds).sorted()
        let p99 = p99s[p99s.count / 2]
        let orgMB = rssAfter - rssBefore
        output(
            String(
                format: "org: %d accounts generated in %.2f s; RSS before %.1f MB, after %.1f MB, org %.1f MB",
                o.accounts, Double(loadTime.components.seconds) + Double(loadTime.components.attoseconds) / 1e18,
                rssBefore, rssAfter, orgMB))
        output(
            String(
                format: "baseline GET /services/data/ (no SOQL): %.0f req/s, p50 %.2f ms, p99 %.2f ms",
                f.baseline.queriesPerSecond, f.baseline.p50Milliseconds, f.baseline.p99Milliseconds))
        output(String(format: "in-process handler, 1 thread, result cache off: %.0f queries/s", f.inProcess))
        output(
            String(
                format: "HTTP, result cache off: %.0f queries/s, p50 %.2f ms, p99 %.2f ms, %.1f rows/page, errors %d",
                f.uncached.queriesPerSecond, f.uncached.p50Milliseconds, f.uncached.p99Milliseconds,
                f.uncached.rowsPerPage, f.uncached.errors))
        output(
            "HTTP, result cache on (default), \(f.queries) distinct queries; cache hits \(f.cacheStatistics.hits), misses \(f.cacheStatistics.misses):"
        )
        for (i, r) in results.enumerated() {
            output(
                String(
                    format: "run %d: %.0f queries/s, p50 %.2f ms, p99 %.2f ms, %d queries, %.1f rows/page, errors %d",
                    i + 1, r.queriesPerSecond, r.p50Milliseconds, r.p99Milliseconds, r.requests, r.rowsPerPage, r.errors
                ))
        }
        output(
            String(
                format:
                    "median: %.0f queries/s (target ≥ %.0f), p99 %.2f ms (target ≤ %.0f), org %.1f MB (target ≤ %.0f)",
                median.queriesPerSecond, o.minQPS, p99, o.maxP99, orgMB, o.maxOrgMB))
        let errors = results.map(\.errors).reduce(0, +) + f.uncached.errors
        if errors > 0 { return .failed(errors) }
        if median.queriesPerSecond < o.minQPS || p99 > o.maxP99 || orgMB > o.maxOrgMB { return .thresholdBreached }
        return .pass
    }
}
