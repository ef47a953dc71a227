/// Time series of one run, bucketed: what the report's charts draw. The live runner measures
/// these and writes them into `run.json` (`series`, in ms); for simulator runs, which keep
/// virtual time, ``SeriesDerivation`` builds them from the history in ticks.
///
/// Keys of `latency` are `op_ack`, `op_remote_apply`, `graphql` and `soql`; of `counters`,
/// `ops_invoked` and `ops_acked`; of `errors`, an error kind (`error:<code>`, `failed:<reason>`).
public struct RunSeries: Codable, Sendable, Equatable {
    /// "ticks" or "ms": the unit of the x axis, bucket width and latencies.
    public var unit: String
    public var bucketWidth: Int
    /// Start of each bucket, ascending.
    public var bucketStarts: [Int]
    public var latency: [String: LatencySeries]
    public var counters: [String: [Int]]
    /// Connected clients at the end of each bucket.
    public var connected: [Int]
    public var errors: [String: [Int]]
    public var faultWindows: [FaultWindow]
    /// How busy the runner's machine was (live runs on Linux; absent otherwise).
    public var machine: MachineSeries?

    public init(
        unit: String, bucketWidth: Int, bucketStarts: [Int], latency: [String: LatencySeries] = [:],
        counters: [String: [Int]] = [:], connected: [Int] = [], errors: [String: [Int]] = [:],
        faultWindows: [FaultWindow] = [],
        machine: MachineSeries? = nil
    ) {
        self.unit = unit
        self.bucketWidth = bucketWidth
        self.bucketStarts = bucketStarts
        self.latency = latency
        self.counters = counters
        self.connected = connected
        self.errors = errors
        self.faultWindows = faultWindows
        self.machine = machine
    }

    /// The end of the last bucket.
    public var end: Int { (bucketStarts.last ?? 0) + bucketWidth }
}

/// Percentiles of one latency per bucket (nil: no sample in that bucket) and over the whole run.
public struct LatencySeries: Codable, Sendable, Equatable {
    public var p50: [Double?]
    public var p90: [Double?]
    public var p99: [Double?]
    public var max: [Double?]
    public var overall: LatencyFigures

    public init(p50: [Double?], p90: [Double?], p99: [Double?], max: [Double?], overall: LatencyFigures) {
        self.p50 = p50
        self.p90 = p90
        self.p99 = p99
        self.max = max
        self.overall = overall
    }
}

/// Percentiles over a set of samples (nearest rank); zero samples gives nils.
public struct LatencyFigures: Codable, Sendable, Equatable {
    public var count: Int
    public var p50: Double?
    public var p90: Double?
    public var p99: Double?
    public var max: Double?

    public init(count: Int, p50: Double?, p90: Double?, p99: Double?, max: Double?) {
        self.count = count
        self.p50 = p50
        self.p90 = p90
        self.p99 = p99
        self.max = max
    }

    /// Nearest-rank percentiles of `samples` (any order).
    public init(samples: [Double]) {
        let sorted = samples.sorted()
        func rank(_ p: Double) -> Double? {
            guard !sorted.isEmpty else { return nil }
            let index = Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1
            return sorted[Swift.min(Swift.max(index, 0), sorted.count - 1)]
        }
        self.init(count: sorted.count, p50: rank(50), p90: rank(90), p99: rank(99), max: sorted.last)
    }
}

/// A span of time with a fault in force (partition, slow link, server down, nemesis disconnect).
public struct FaultWindow: Codable, Sendable, Equatable {
    public var kind: String
    public var label: String
    public var start: Int
    public var end: Int

    public init(kind: String, label: String, start: Int, end: Int) {
        self.kind = kind
        self.label = label
        self.start = start
        self.end = end
    }
}

/// The runner's machine, one value per bucket (nil: not sampled in that bucket): the share of all
/// cores busy, the CPU other processes used (in cores), and the share of time some runnable task
/// waited for a CPU (Linux PSI, when the kernel has it). A bucket is `contended` (a fault window
/// of that kind) when `foreign` reached `foreignBound` and `busy` reached `busyBound`.
public struct MachineSeries: Codable, Sendable, Equatable {
    public var cores: Int
    /// Nil: the run did not judge contention (`foreign-cpu-bound: off`).
    public var foreignBound: Double?
    public var busyBound: Double
    public var busy: [Double?]
    public var foreign: [Double?]
    public var pressure: [Double?]

    public init(
        cores: Int, foreignBound: Double?, busyBound: Double, busy: [Double?], foreign: [Double?], pressure: [Double?]
    ) {
        self.cores = cores
        self.foreignBound = foreignBound
        self.busyBound = busyBound
        self.busy = busy
        self.foreign = foreign
        self.pressure = pressure
    }
}
