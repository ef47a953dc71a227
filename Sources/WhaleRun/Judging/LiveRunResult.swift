import WhaleReports
import WhaleSim

/// What a live run found: verdicts, thresholds, figures, the history and where the record is.
public struct LiveRunResult: Sendable {
    public struct MetricOutcome: Sendable, Codable {
        public var threshold: String
        public var actual: Double?
        public var met: Bool
        /// Set when the threshold could not be judged (the generator was saturated): why.
        public var unknown: String?
    }

    public var scenario: Scenario
    public var history: History
    public var results: [CheckResult]
    public var verdict: Verdict
    public var thresholds: [(Threshold, Bool)]
    public var metricThresholds: [MetricOutcome]
    public var histograms: [String: LatencyHistogram]
    public var series: RunSeries
    public var errors: Int
    public var attempts: Int
    public var clientsStarted: Int
    public var aborted: String?
    public var durationMs: Int
    public var notes: [String]
    /// What interrupted the run (`SIGINT`, `SIGTERM`), when a signal ended its load early.
    public var interrupted: String? = nil
    /// A replay workload's recorded and replayed request mix (`workload: {replay:}`).
    public var replay: ReplayRecord? = nil
    /// Wall-clock start of the run's clock (ms since 1970): `merge` lines shards up by it.
    public var epochStartMs: Int64 = 0
    /// Each note's revision when the run began (0: a fresh note); the history counts from there.
    public var baseRevisions: [Int] = []
    /// Per-second histograms of each latency (`seriesHistograms` in `run.json`).
    public var bucketHistograms: [String: [[[UInt64]]]] = [:]
    /// Slice i of N, when the run was one shard (checkers and thresholds wait for `merge`).
    public var shard: (index: Int, count: Int)?
    /// The embedded fake Salesforce's request log, summarized (nil when it was not embedded).
    public var salesforce: SalesforceFigures?
    /// The `{steady}` scope's window on the run clock.
    public var steadyWindow: Range<Int>?
    /// Fault windows the run could not carry out, and why (a power loss without FUSE): the run
    /// proved nothing about them, so it is inconclusive (exit 3) unless something failed.
    public var unavailable: [String] = []

    /// 2 if a checker is invalid; 1 if a latency or error threshold is breached; 3 if a fault
    /// window was unavailable, if a checker
    /// threshold is breached or a checker is unknown and no `!= invalid` threshold accepts it
    /// (as `simulate`); 0 otherwise.
    ///
    /// An interrupted run is at best inconclusive: 2 if a checker found a violation in what was
    /// recorded, else 3.
    public var exitCode: Int32 {
        if interrupted != nil { return verdict == .invalid ? 2 : 3 }
        if shard != nil { return 0 }  // judged by `whalesim merge`
        if verdict == .invalid { return 2 }
        if metricThresholds.contains(where: { !$0.met && $0.unknown == nil }) { return 1 }
        if metricThresholds.contains(where: { $0.unknown != nil }) { return 3 }
        if !unavailable.isEmpty { return 3 }
        if thresholds.contains(where: { !$0.1 }) { return 3 }
        let accepted = Set(
            scenario.thresholds.filter { $0.relation == .notEquals && $0.verdict == .invalid }.map(\.checker))
        if results.contains(where: { $0.verdict == .unknown && !accepted.contains($0.checker) }) { return 3 }
        return 0
    }
}
