/// A simulation scenario: what to run, decoded strictly from `Scenarios/*.yml`
/// (see ``Scenario/decode(yaml:source:)``) or taken from the built-ins (``BuiltinScenarios``).
///
/// ```yaml
/// name: convergence-smoke
/// mode: simulate
/// seed: 1
/// clients: {count: 3, documents: 1, protocol: 2}
/// ops: 300
/// ticks: {safety: 60000, liveness-budget: 20000}
/// network: {delay: {distribution: uniform, min: 1, max: 30}, queue-bound: 64}
/// mix: {typing-burst: 40, paste: 10, delete: 15}
/// checkers: [convergence, intention]
/// thresholds: ["convergence == valid"]
/// model: {board: 5, accounts: 2}   # optional: the Whaler model workloads
/// nemeses:
///   - {kind: disconnect, every: 400, duration: 60}
/// storage: {synchronous: full}     # full (default), normal or off: what a power-loss nemesis takes
/// faults:                          # catalog faults (whalesim simulate --list-faults)
///   - client-tie-priority          # a plain name: on for the whole run
///   - {name: server-applies-resend-twice, at: [2000, 9000], duration: 3000}  # on at each tick for 3000
///   - {name: remote-cursor-wrong-rule, every: 4000, duration: 1000}         # periodic, like a nemesis
/// ```
///
/// A windowed fault is switched on in every client and the server when its window opens and
/// off when it closes; windows still open at the heal close there (``FaultWindowSpec``).
public struct Scenario: Hashable, Sendable {
    public enum Mode: String, Hashable, Sendable, CaseIterable { case simulate, live }
    /// Which characters the workload types.
    public enum Alphabet: String, Hashable, Sendable, CaseIterable {
        /// Letters, digits, spaces and newlines.
        case ascii
        /// Adds emoji (astral and ZWJ sequences), combining marks and CJK.
        case unicode
    }

    public var name: String
    public var description: String = ""
    public var mode: Mode = .simulate
    public var seed: UInt64 = 1
    public var clients: Int = 3
    public var documents: Int = 1
    /// 1 = the original Whaler protocol, 2 = whalesim's extensions (PROTOCOL.md §3).
    public var protocolVersion: Int = 2
    public var alphabet: Alphabet = .ascii
    public var initialText: String = ""
    /// Keystrokes per `paste` action (`text.paste-min` ... `text.paste-max`).
    public var pasteSize: ClosedRange<Int> = 3...16
    /// Client edits (one keystroke, paste or delete each) over the whole safety phase.
    public var ops: Int = 200
    /// The safety phase ends at this tick even if ops remain.
    public var safetyTicks: Int = 100_000
    /// After healing, convergence must happen within this many ticks.
    public var livenessBudget: Int = 20_000
    public var delay: DelayDistribution = .uniform(min: 1, max: 20)
    public var queueBound: Int = 64
    public var thinkTime: DelayDistribution = .exponential(mean: 20, max: 400)
    public var mix: ActionMix = ActionMix()
    public var nemeses: [NemesisSpec] = []
    /// The catalog faults (`whalesim simulate --list-faults`) and when each is on: the whole
    /// run (a plain name in the file) or windows.
    public var faultWindows: [FaultWindowSpec] = []
    /// The names of the faults in ``faultWindows``, each once, in order. Setting it keeps the
    /// windows of the names still listed and adds new names for the whole run.
    public var faults: [String] {
        get {
            var names: [String] = []
            for window in faultWindows where !names.contains(window.name) { names.append(window.name) }
            return names
        }
        set {
            var kept = faultWindows.filter { newValue.contains($0.name) }
            for name in newValue where !kept.contains(where: { $0.name == name }) { kept.append(.wholeRun(name)) }
            faultWindows = kept
        }
    }
    public var checkers: [CheckerName] = CheckerName.allCases
    public var thresholds: [Threshold] = []
    /// The Whaler model side (boards, account pages, GraphQL mutations); nil: notes only.
    public var model: ModelSpec?
    /// Bounds on measured figures (`op_ack.p99 < 50ms`, `errors.rate < 0.1%`), judged by live
    /// runs; the simulator lists them as not judged.
    public var metricThresholds: [MetricThreshold] = []
    /// What only a live run has (targets, load profile, duration, network faults); nil: the
    /// defaults of ``LiveSpec`` when run live.
    public var live: LiveSpec?
    /// A schedule the simulator follows instead of the seeded workload and nemeses (``ScriptSpec``,
    /// docs/scripted-scenarios.md); nil: the workload is drawn from the seed.
    public var script: ScriptSpec?
    /// `workload: {replay: FILE, speed: X}`: live users play recorded sessions instead of the
    /// seeded behaviour (docs/sessions.md); nil: the seeded workload.
    public var replay: ReplaySpec?
    /// When the server's storage makes writes durable (`storage: {synchronous: full|normal|off}`):
    /// what a `power-loss` takes (``StorageSync``). Live, the embedded server runs SQLite at this level.
    public var storageSync: StorageSync = .full

    public init(name: String) { self.name = name }
}

/// The checkers a scenario can run.
public enum CheckerName: String, Hashable, Sendable, CaseIterable, Codable, Comparable {
    case convergence, intention, cursors, revisions, liveness, model
    public static func < (a: CheckerName, b: CheckerName) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

/// A pass condition on one checker's verdict: `convergence == valid` (unknown breaches it) or
/// `cursors != invalid` (unknown is accepted).
public struct Threshold: Hashable, Sendable, CustomStringConvertible {
    public enum Relation: String, Hashable, Sendable { case equals = "==", notEquals = "!=" }
    public var checker: CheckerName
    public var relation: Relation
    public var verdict: Verdict

    public init(checker: CheckerName, relation: Relation, verdict: Verdict) {
        self.checker = checker
        self.relation = relation
        self.verdict = verdict
    }

    public func isMet(by actual: Verdict) -> Bool {
        relation == .equals ? actual == verdict : actual != verdict
    }

    public var description: String { "\(checker.rawValue) \(relation.rawValue) \(verdict.rawValue)" }
}
