/// `run.json` as the reports read it (docs/run-record.md). Decoded from the file, not from
/// the simulator's types, so a record written by the simulator, the live runner or `merge`
/// renders the same way. Fields added after schema 1 are optional.
///
/// ```swift
/// let record = try JSONDecoder().decode(RunRecordFile.self, from: Data(contentsOf: runJSON))
/// record.verdicts.map(\.checker)   // ["convergence", "intention", ...]
/// ```
public struct RunRecordFile: Codable, Sendable, Equatable {
    public struct CheckerVerdict: Codable, Sendable, Equatable {
        public var checker: String
        public var verdict: String
        public var evidence: [String]
    }

    public struct ThresholdOutcome: Codable, Sendable, Equatable {
        public var threshold: String
        public var met: Bool
        /// Why the threshold could not be judged (the load generator was saturated); absent when it was.
        public var unknown: String?
        public init(threshold: String, met: Bool, unknown: String? = nil) {
            self.threshold = threshold
            self.met = met
            self.unknown = unknown
        }
    }

    public struct Shrunk: Codable, Sendable, Equatable {
        public var seed: UInt64
        public var clients: Int
        public var documents: Int
        public var ops: Int
        public var runs: Int
        public var replayCommand: String
        public var evidence: [String]
        /// The shrunk run's history file in the run directory (schema 2).
        public var history: String?
    }

    /// One document and the clients editing it (schema 2).
    public struct DocumentClients: Codable, Sendable, Equatable {
        public var name: String
        public var clients: [String]
    }

    public var schemaVersion: Int
    public var whalesimVersion: String
    public var scenario: String
    public var seed: UInt64
    /// "ticks" (simulated time) or "ms" (wall clock); absent in schema 1, which is ticks.
    public var timeUnit: String?
    /// When the run started (ISO 8601, UTC) and how long it took on the wall clock.
    public var startedAt: String?
    public var wallSeconds: Double?
    public var options: [String: OptionValue]
    public var verdict: String
    public var verdicts: [CheckerVerdict]
    public var thresholds: [ThresholdOutcome]
    public var counts: [String: Int]
    public var historyHash: String
    public var replayCommand: String
    public var shrunk: Shrunk?
    public var documents: [DocumentClients]?
    /// Time series measured by the runner; absent for simulator runs (derived from the history).
    public var series: RunSeries?
    /// The fake Salesforce's request summary; absent when the run had no Salesforce traffic.
    public var salesforce: SalesforceSummary?
    /// The signal that interrupted a live run (`SIGINT`, `SIGTERM`); absent when it ran its course.
    public var interrupted: String?
    /// Live runs with `live.timer-grid`: the step, in ms, their users' pauses ended on (absent: none).
    public var timerGridMs: Int?
    /// A replay workload's request mix, recorded beside replayed (docs/sessions.md).
    public var replay: ReplayMix?

    /// `run.json`'s `replay`: per request kind, how many the recording made, how many the users
    /// should have made and made, median latencies, and why a kind was not replayed.
    public struct ReplayMix: Codable, Sendable, Equatable {
        public struct Kind: Codable, Sendable, Equatable {
            public var kind: String
            public var recorded: Int
            public var expected: Int
            public var replayed: Int
            public var recordedP50Ms: Int?
            public var replayedP50Ms: Int?
            public var notReplayed: String?
            public var failed: Int?
            public var lastFailure: String?
        }
        public var file: String
        public var speed: Double
        public var sessions: Int
        public var users: Int
        public var kinds: [Kind]
    }

    /// The highest schema version these reports understand.
    public static let supportedSchemaVersion = 3

    /// The time unit, defaulting to ticks for records that predate the field.
    public var unit: String { timeUnit ?? "ticks" }
}

/// One value of `run.json`'s `options` object: the runner decides what it records.
public enum OptionValue: Codable, Sendable, Equatable, CustomStringConvertible {
    case int(Int), double(Double), bool(Bool), string(String), list([String])

    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let v = try? c.decode(Int.self) {
            self = .int(v)
        } else if let v = try? c.decode(Double.self) {
            self = .double(v)
        } else if let v = try? c.decode(Bool.self) {
            self = .bool(v)
        } else if let v = try? c.decode(String.self) {
            self = .string(v)
        } else {
            self = .list(try c.decode([String].self))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .int(let v): try c.encode(v)
        case .double(let v): try c.encode(v)
        case .bool(let v): try c.encode(v)
        case .string(let v): try c.encode(v)
        case .list(let v): try c.encode(v)
        }
    }

    public var description: String {
        switch self {
        case .int(let v): String(v)
        case .double(let v): String(v)
        case .bool(let v): String(v)
        case .string(let v): v
        case .list(let v): v.isEmpty ? "none" : v.joined(separator: ", ")
        }
    }
}
