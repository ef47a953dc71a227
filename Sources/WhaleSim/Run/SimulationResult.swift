import WhaleProtocol

/// What one simulated run produced: the (overridden) scenario, the seed, the history, the
/// checkers' verdicts and a few counts for the report.
public struct SimulationResult: Sendable {
    public var scenario: Scenario
    public var seed: UInt64
    /// Every fault the scenario lists, for the whole run or in windows.
    public var faults: [Fault]
    public var history: History
    public var results: [CheckResult]
    public var counts: Counts

    public struct Counts: Hashable, Sendable, Codable {
        public var edits = 0
        public var actions = 0
        /// Ops the clients created (an op may carry several composed edits).
        public var invoked = 0
        /// Op outcomes (Jepsen's ok / fail / info): acknowledged, dropped or refused, neither.
        public var acknowledged = 0
        public var failed = 0
        public var unknown = 0
        public var messages = 0
        public var dropped = 0
        public var disconnects = 0
        public var serverRestarts = 0
        public var ticks = 0
        public var historyEvents = 0
    }

    /// The merged verdict (invalid wins, then unknown).
    public var verdict: Verdict { Checkers.merged(results) }

    /// The first checker that said `invalid` (what the shrinker keeps failing).
    public var firstInvalid: CheckerName? { results.first { $0.verdict == .invalid }?.checker }

    /// Thresholds of the scenario that the verdicts do not meet.
    public var breachedThresholds: [Threshold] {
        scenario.thresholds.filter { t in
            let v = results.first { $0.checker == t.checker }?.verdict ?? .unknown
            return !t.isMet(by: v)
        }
    }
}
