/// Runs `SOQLFuzzer` cases through the engine (`SOQL.execute`, the plan cache included) and
/// reports every case that did not end in a result or one of Salesforce's query errors, or took
/// longer than the time bound. A trap cannot be reported from inside the process: rerun the
/// printed range with `whalesim fuzz soql --verbose`, which prints each query before running it.
///
/// ```swift
/// let report = SOQLFuzzRun.run(org: org, seed: 1, range: 0..<100_000)
/// report.findings.isEmpty   // true, or each finding names its case and query
/// ```
public enum SOQLFuzzRun {
    /// The errors a bad query may get (each 400, as Salesforce answers them).
    public static let allowedErrorCodes: Set<String> = [
        "MALFORMED_QUERY", "INVALID_FIELD", "INVALID_TYPE", "INVALID_QUERY_FILTER_OPERATOR",
        "NUMBER_OUTSIDE_VALID_RANGE", "QUERY_TOO_COMPLICATED",
    ]

    /// One case that broke the contract.
    public struct Finding: Sendable, CustomStringConvertible {
        public var index: Int
        public var query: String
        public var problem: String
        public var description: String {
            let shown = query.count > 300 ? String(query.prefix(300)) + "… (\(query.count) characters)" : query
            return "case \(index): \(problem)\n  query: \(shown)"
        }
    }

    public struct Report: Sendable {
        public var cases = 0
        public var answered = 0
        public var refused = 0
        public var slowest: Duration = .zero
        public var slowestIndex = 0
        public var elapsed: Duration = .zero
        public var findings: [Finding] = []
        /// Entries in the org's plan cache after the run (bounded by its capacity).
        public var planCacheEntries = 0
    }

    /// Cases `range` of `seed`; `timeBound` is a correctness bound (a hang), not a speed target.
    /// `before` sees each query before it runs (the CLI's `--verbose`).
    public static func run(
        org: Org, seed: UInt64, range: Range<Int>, timeBound: Duration = .seconds(1),
        before: ((Int, String) -> Void)? = nil
    ) -> Report {
        let fuzzer = SOQLFuzzer(org: org, seed: seed)
        let clock = ContinuousClock()
        var report = Report()
        let start = clock.now
        for index in range {
            let soql = fuzzer.query(index)
            before?(index, soql)
            let t0 = clock.now
            let outcome = check(soql, org: org, allQueries: index % 7 == 0)
            let took = clock.now - t0
            report.cases += 1
            if took > report.slowest { report.slowest = took; report.slowestIndex = index }
            switch outcome {
            case .answered: report.answered += 1
            case .refused: report.refused += 1
            case .broken(let problem): report.findings.append(Finding(index: index, query: soql, problem: problem))
            }
            if took > timeBound {
                report.findings.append(
                    Finding(index: index, query: soql, problem: "took \(took), over the bound of \(timeBound)"))
            }
        }
        report.elapsed = clock.now - start
        report.planCacheEntries = org.queryCache.withLock { $0.count }
        if report.planCacheEntries > org.queryCache.withLock({ $0.capacity }) {
            report.findings.append(
                Finding(
                    index: range.upperBound, query: "",
                    problem: "plan cache grew past its capacity: \(report.planCacheEntries)"))
        }
        return report
    }

    enum Outcome { case answered, refused, broken(String) }

    static func check(_ soql: String, org: Org, allQueries: Bool) -> Outcome {
        do {
            let result = try SOQL.execute(soql, in: org, apiVersion: "59.0", includeDeleted: allQueries)
            guard result.totalSize >= 0, result.isAggregate || result.records.count == result.totalSize else {
                return .broken("inconsistent result: totalSize \(result.totalSize), \(result.records.count) records")
            }
            return .answered
        } catch {
            guard allowedErrorCodes.contains(error.errorCode), error.httpStatus == 400, !error.message.isEmpty else {
                return .broken("unexpected error \(error.httpStatus) \(error.errorCode): \(error.message)")
            }
            return .refused
        }
    }
}
