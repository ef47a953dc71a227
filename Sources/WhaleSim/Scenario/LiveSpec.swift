/// What only a live run (`whalesim run`) has: targets, load profile, duration, real think
/// times, network faults on real connections, and how long to wait for quiescence. Times are
/// milliseconds; a nemesis's ticks are milliseconds in a live run.
///
/// ```yaml
/// live:
///   server: embedded                 # or http://host:port (the Whaler API; /socket beside it)
///   salesforce: embedded             # or https://instance (a real org needs --salesforce-user)
///   duration: 30s
///   load: {profile: ramp, ramp-up: 10s}          # constant | ramp | arrival | stages
///   think-time: {distribution: exponential, mean: 700, max: 5000}
///   keystroke: {distribution: uniform, min: 60, max: 220}
///   import: {pages: 2, filters: [Industry, BillingState]}
///   network-faults:
///     - {kind: latency, at: [5000], duration: 4000, ms: 80, jitter: 20}
///     - {kind: partition, at: [12000], duration: 3000, clients: 25}
///   quiescence: 20s
///   abort-on-fail: true
///   lag-bound: 50ms                  # runner_lag p99 past this: latency thresholds unknown
///   slow-client-queue: 0             # embedded server: frames waiting past which a client is slow
///   recorder-visits: 250ms           # the recorder is no standing member: it resyncs this often
///   timer-grid: 2ms                  # users' pauses end on this grid (default 0ms: each at its own instant)
///   runner-loop: nio                 # the users' note sockets on NIO's loops (default epoll: whalesim's own)
/// ```
public struct LiveSpec: Hashable, Sendable {
    /// Where a live run sends its traffic.
    public enum Target: Hashable, Sendable, CustomStringConvertible {
        /// Started in the runner's process (`whalesim serve` / `fake-salesforce` on port 0).
        case embedded
        case url(String)
        public var description: String {
            switch self {
            case .embedded: "embedded"
            case .url(let u): u
            }
        }
    }

    public var server: Target = .embedded
    public var salesforce: Target = .embedded
    public var durationMs = 30_000
    public var load: LoadProfile = .ramp(upMs: 5_000)
    /// Pause between a user's actions.
    public var thinkTime: DelayDistribution = .exponential(mean: 700, max: 5_000)
    /// Pause between the keystrokes of a typing burst (human speed).
    public var keystroke: DelayDistribution = .uniform(min: 60, max: 220)
    /// Salesforce import at sign-in: how many result pages to follow at most, and which
    /// fields stack filters (values escaped into the SOQL). `pages: 0` skips the import.
    public var importPages = 2
    public var importFilters: [String] = ["Industry", "BillingState"]
    public var networkFaults: [NetworkFaultSpec] = []
    /// After the load stops and faults heal: how long the run may take to go quiet.
    public var quiescenceMs = 20_000
    /// Stop the load as soon as a latency or error threshold is already lost.
    public var abortOnFail = false
    /// The load generator's own scheduling lag (`runner_lag` p99 over a threshold's window) past
    /// which its latency figures are not the server's: latency thresholds are then `unknown`.
    public var lagBoundMs = 50
    /// Cores' worth of CPU other programs may take on the runner's machine before a second
    /// counts as contended (with the machine at least 85% busy): a latency threshold breached
    /// only in contended seconds is `unknown`, since the server may have been starved. Nil
    /// (`foreign-cpu-bound: off`): every breach is judged as the server's, for a dedicated machine.
    public var foreignCPUBoundCores: Double? = 0.25
    /// The embedded server's `--slow-client-queue`: outgoing frames waiting on a connection past
    /// which the server marks it slow (what `server-drops-slow-client` acts on). Nil: the server's
    /// default (1,000, which a run of a few seconds never reaches); 0 marks a connection slow as
    /// soon as one frame waits for it, so a short run shows the fault.
    public var slowClientQueue: Int?
    /// `live.recorder-visits`: each note's recorder is no standing member but visits this often
    /// (joins, takes the ops it missed by a protocol-2 resync, leaves), so a note whose clients all
    /// left is empty on the server, as without whalesim watching (`revision-reset-on-empty`); a
    /// reset shows at the next visit as the server going back. It sees ops up to that much later and
    /// no cursors between visits. Nil (the default): a standing member, which sees everything at once.
    public var recorderVisitEveryMs: Int?
    /// `live.timer-grid`: a virtual user's pauses (think times, keystrokes) end on the next whole
    /// multiple of this many milliseconds of the monotonic clock, so the users due in the same
    /// step wake the runner once. Latencies count from the step, so it is not taken for the
    /// runner's lag. 0 (the default): every pause ends at its own instant, as people's do.
    ///
    /// A trade, so not the default (docs/decisions/0045-timer-grid-off-by-default.md): with one loop at
    /// 2,000 ops/s a 2 ms grid took the runner's CPU per op down by about a tenth (7 of 7
    /// interleaved pairs), but arrivals bunched into steps, and against a server that commits
    /// each op to disk the op→ack p50 rose by about 0.6 ms. For more load from one runner
    /// machine where a millisecond of p50 does not matter.
    public var timerGridMs = 0
    /// `live.runner-loop`: what carries the virtual users' note sockets and pauses. Epoll by
    /// default: at 2,000 ops/s offered it cost the runner about a fifth less CPU than NIO's
    /// loops (docs/decisions/0046-runner-on-epoll-loops.md). Where there is no epoll (not Linux) the
    /// users run on NIO's loops whatever this says, and the run notes it.
    public var runnerLoop = RunnerLoop.epoll

    public init() {}
}

/// What carries the virtual users' note sockets, their pauses and their tasks (`live.runner-loop`).
public enum RunnerLoop: String, Hashable, Sendable, CaseIterable {
    /// NIO's event loops: `LeanSocket`s, the users' tasks on NIO's loops (the runner before
    /// docs/decisions/0046-runner-on-epoll-loops.md; kept to compare, and as a way back).
    case nio
    /// Loops of whalesim's own on plain epoll (`EpollClientLoop`, the default): each user's task,
    /// its timers, its note's socket and the note's recorder on one thread with no NIO channel.
    case epoll
}

/// How many virtual clients are connected over time.
public enum LoadProfile: Hashable, Sendable, CustomStringConvertible {
    /// Every client from the start.
    case constant
    /// From none to all clients evenly over `upMs`, then constant.
    case ramp(upMs: Int)
    /// New clients arrive at `perSecond` (until the scenario's client count); none leave.
    case arrival(perSecond: Double)
    /// Linear ramps: each stage moves the client count to `clients` over `durationMs`.
    case stages([LoadStage])

    /// Clients that should be connected `t` ms into the load, for a scenario of `total` clients.
    public func clients(at t: Int, total: Int) -> Int {
        switch self {
        case .constant:
            return total
        case .ramp(let up):
            guard up > 0 else { return total }
            return min(total, Int((Double(total) * Double(max(0, t)) / Double(up)).rounded(.down)) + (t >= 0 ? 1 : 0))
        case .arrival(let rate):
            return min(total, Int(Double(max(0, t)) / 1000 * rate) + 1)
        case .stages(let stages):
            var start = 0, from = 0
            for stage in stages {
                if t < start + stage.durationMs {
                    let f = Double(t - start) / Double(max(1, stage.durationMs))
                    return min(total, max(0, Int((Double(from) + f * Double(stage.clients - from)).rounded())))
                }
                start += stage.durationMs
                from = stage.clients
            }
            return min(total, from)
        }
    }

    /// The largest client count the profile asks for.
    public func peak(total: Int) -> Int {
        switch self {
        case .stages(let stages): min(total, stages.map(\.clients).max() ?? 0)
        default: total
        }
    }

    public var description: String {
        switch self {
        case .constant: "constant"
        case .ramp(let up): "ramp over \(up) ms"
        case .arrival(let rate): "arrival \(rate)/s"
        case .stages(let s): "stages " + s.map { "\($0.clients) in \($0.durationMs) ms" }.joined(separator: ", ")
        }
    }
}

/// One stage of a staged load profile.
public struct LoadStage: Hashable, Sendable {
    public var durationMs: Int
    public var clients: Int
    public init(durationMs: Int, clients: Int) {
        self.durationMs = durationMs
        self.clients = clients
    }
}

/// A fault on real connections, applied by the runner's TCP proxy in scheduled windows.
public struct NetworkFaultSpec: Hashable, Sendable {
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        /// Added delay each way (`ms`, plus `jitter`), order kept.
        case latency
        /// A bandwidth cap each way per connection (`bytes-per-second`).
        case bandwidth
        /// Data held both ways, released when the window ends.
        case partition
        /// Connections closed at once (reset); clients reconnect.
        case drop
        /// Data silently discarded both ways, sockets left open: clients must notice by themselves.
        case halfOpen = "half-open"
    }

    public var kind: Kind
    /// Window starts (ms from the start of the load).
    public var at: [Int]
    public var durationMs: Int
    /// Percentage of the clients affected (chosen from the seed).
    public var clientsPercent: Int
    public var latencyMs: Int
    public var jitterMs: Int
    public var bytesPerSecond: Int

    public init(
        kind: Kind, at: [Int], durationMs: Int, clientsPercent: Int = 100, latencyMs: Int = 0, jitterMs: Int = 0,
        bytesPerSecond: Int = 0
    ) {
        self.kind = kind
        self.at = at
        self.durationMs = durationMs
        self.clientsPercent = clientsPercent
        self.latencyMs = latencyMs
        self.jitterMs = jitterMs
        self.bytesPerSecond = bytesPerSecond
    }
}

/// A pass condition on a measured figure: `op_ack.p99 < 50ms`, `errors.rate < 0.1%`,
/// `soql.count >= 1`. Judged by live runs (and `merge`) on the whole run's histograms, or on a
/// window of it: `op_ack.p99{steady} < 50ms` (``Scope``).
public struct MetricThreshold: Hashable, Sendable, CustomStringConvertible {
    public static let metrics = [
        "op_ack", "op_ack_resent", "op_remote_apply", "op_remote_apply_resent", "connect", "login", "graphql", "soql",
        "converge", "runner_lag", "errors",
    ]
    /// The stretch of the run a latency threshold is judged on (per-second buckets).
    public enum Scope: String, Hashable, Sendable, CaseIterable {
        /// From when the load profile reaches its full client count to the end of the load,
        /// less every fault window that touches the whole server (a restart, a partition, a
        /// network shaping; not one client's disconnect) and the 3 s after each.
        case steady
        /// The whole run less those same fault windows and the 3 s after each.
        case outsideFaults = "outside-faults"
    }
    public static let latencyStats = ["p50", "p90", "p95", "p99", "p999", "max", "mean", "count"]
    public enum Relation: String, Hashable, Sendable, CaseIterable {
        case less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
    }

    public var metric: String
    /// `p99`, `max`, `count`... or for `errors`: `rate` (a fraction) or `count`.
    public var stat: String
    public var relation: Relation
    /// Milliseconds for latencies, a fraction for a rate (0.1% = 0.001), a number for counts.
    public var value: Double
    public var text: String
    /// nil: the whole run.
    public var scope: Scope?

    /// A latency (judged on histograms), not an error rate or count.
    public var isLatency: Bool { metric != "errors" }

    public func isMet(by actual: Double) -> Bool {
        switch relation {
        case .less: actual < value
        case .lessOrEqual: actual <= value
        case .greater: actual > value
        case .greaterOrEqual: actual >= value
        }
    }

    /// Whether this bound can no longer be met once `actual` is seen (an upper bound already
    /// exceeded on a figure that only grows, such as max or a count): early abort.
    public var canOnlyGetWorse: Bool { relation == .less || relation == .lessOrEqual }

    public var description: String { text }

    /// Parses `metric.stat <op> value[unit]`; nil with a reason when it is not one.
    public static func parse(_ text: String) -> Result<MetricThreshold, ThresholdParseError> {
        let parts = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard parts.count == 3 else {
            return .failure(.init("expected \"<metric>.<stat> <op> <value>\", e.g. \"op_ack.p99 < 50ms\""))
        }
        var figure = parts[0]
        var scope: Scope?
        if let open = figure.firstIndex(of: "{") {
            guard figure.hasSuffix("}") else {
                return .failure(
                    .init(
                        "a scope is written {steady} or {outside-faults} after the figure, got \(String(reflecting: parts[0]))"
                    ))
            }
            let word = String(figure[figure.index(after: open)..<figure.index(before: figure.endIndex)])
            guard let s = Scope(rawValue: word) else {
                return .failure(
                    .init(
                        "unknown scope \(String(reflecting: word)) (scopes: \(Scope.allCases.map(\.rawValue).joined(separator: ", ")))"
                    ))
            }
            scope = s
            figure = String(figure[..<open])
        }
        let name = figure.split(separator: ".", maxSplits: 1).map(String.init)
        if scope != nil, name.first == "errors" {
            return .failure(.init("a scope applies to latencies; errors are judged over the whole run"))
        }
        guard name.count == 2, metrics.contains(name[0]) else {
            return .failure(
                .init(
                    "unknown metric \(String(reflecting: parts[0])) (metrics: \(metrics.joined(separator: ", ")); checkers: \(CheckerName.allCases.map(\.rawValue).joined(separator: ", ")))"
                ))
        }
        let stats = name[0] == "errors" ? ["rate", "count"] : latencyStats
        guard stats.contains(name[1]) else {
            return .failure(
                .init("\(name[0]) has no \(String(reflecting: name[1])) (use \(stats.joined(separator: ", ")))"))
        }
        guard let relation = Relation(rawValue: parts[1]) else {
            return .failure(.init("unknown comparison \(String(reflecting: parts[1])) (use <, <=, > or >=)"))
        }
        var number = parts[2]
        var scale = 1.0
        let isLatency = name[0] != "errors" && name[1] != "count"
        if isLatency {
            if number.hasSuffix("ms") {
                number.removeLast(2)
            } else if number.hasSuffix("us") {
                number.removeLast(2); scale = 0.001
            } else if number.hasSuffix("s") {
                number.removeLast(); scale = 1000
            } else {
                return .failure(.init("a latency needs a unit (ms, s or us), got \(String(reflecting: parts[2]))"))
            }
        } else if name[1] == "rate" {
            guard number.hasSuffix("%") else {
                return .failure(.init("a rate is a percentage, e.g. 0.1%, got \(String(reflecting: parts[2]))"))
            }
            number.removeLast()
            scale = 0.01
        }
        guard let v = Double(number), v.isFinite, v >= 0 else {
            return .failure(.init("not a non-negative number: \(String(reflecting: parts[2]))"))
        }
        return .success(
            MetricThreshold(
                metric: name[0], stat: name[1], relation: relation, value: v * scale,
                text: parts.joined(separator: " "), scope: scope))
    }
}

/// Why a threshold text is not one.
public struct ThresholdParseError: Error, Hashable, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
}
