import Foundation
import WhaleProtocol

/// The version of whalesim's simulator; part of the replay key (seed + scenario + version).
public enum WhaleSimVersion {
    public static let current = "0.1.0"
}

/// `run.json`: one run's options, verdicts with evidence, counts, history hash and replay
/// command. Versioned (`schemaVersion`) so CI tooling can rely on the shape; every field is
/// documented in docs/run-record.md (bump the version and the doc together).
public struct RunRecord: Codable, Sendable {
    /// 2 added `timeUnit`, `startedAt`, `wallSeconds`, `documents` and `shrunk.history`; 3 writes
    /// the histories in the compact form (`history.whr`, `shrunk-history.whr`) and `run.json` unindented.
    public static let schemaVersion = 3
    /// The shrunk run's history, next to `history.whr` in the run directory.
    public static let shrunkHistoryFile = "shrunk-history.whr"

    public struct Options: Codable, Sendable {
        public var clients: Int
        public var documents: Int
        public var protocolVersion: Int
        public var ops: Int
        public var alphabet: String
        public var delay: String
        public var thinkTime: String
        public var queueBound: Int
        public var safetyTicks: Int
        public var livenessBudget: Int
        public var nemeses: [String]
        public var faults: [String]
        public var checkers: [String]
        public var overrides: [String]
        /// The storage's sync level (``StorageSync``) when it is not `full`; absent at `full`.
        public var storageSynchronous: String?
    }

    public struct ThresholdOutcome: Codable, Sendable {
        public var threshold: String
        public var met: Bool
    }

    public struct Shrunk: Codable, Sendable {
        public var seed: UInt64
        public var clients: Int
        public var documents: Int
        public var ops: Int
        public var runs: Int
        public var replayCommand: String
        public var evidence: [String]
        /// The shrunk run's history file in the run directory.
        public var history: String
    }

    /// A document and the clients editing it (for per-document convergence in reports).
    public struct DocumentClients: Codable, Sendable {
        public var name: String
        public var clients: [String]
    }

    public var schemaVersion = RunRecord.schemaVersion
    public var whalesimVersion = WhaleSimVersion.current
    public var scenario: String
    public var seed: UInt64
    /// The unit of every time in the record and its history: simulated ticks.
    public var timeUnit = "ticks"
    /// Wall-clock start (ISO 8601 UTC) and duration, set by the CLI; never on the simulated path.
    public var startedAt: String?
    public var wallSeconds: Double?
    public var options: Options
    public var verdict: Verdict
    public var verdicts: [CheckResult]
    public var thresholds: [ThresholdOutcome]
    public var counts: SimulationResult.Counts
    public var historyHash: String
    public var replayCommand: String
    public var shrunk: Shrunk?
    public var documents: [DocumentClients]

    public init(result: SimulationResult, scenarioRef: String, overrides: ScenarioOverrides, shrunk: Shrinker.Outcome?)
    {
        let s = result.scenario
        scenario = s.name
        seed = result.seed
        options = Options(
            clients: s.clients, documents: s.documents, protocolVersion: s.protocolVersion, ops: s.ops,
            alphabet: s.alphabet.rawValue, delay: s.delay.description, thinkTime: s.thinkTime.description,
            queueBound: s.queueBound, safetyTicks: s.safetyTicks, livenessBudget: s.livenessBudget,
            nemeses: s.nemeses.map { n in
                "\(n.kind.rawValue) " + (n.every.map { "every \($0)" } ?? "at \(n.at)") + " for \(n.duration)"
            },
            faults: s.faultWindows.map(\.description), checkers: s.checkers.map(\.rawValue),
            overrides: overrides.arguments,
            storageSynchronous: s.storageSync == .full ? nil : s.storageSync.rawValue)
        verdict = result.verdict
        verdicts = result.results
        thresholds = s.thresholds.map { t in
            ThresholdOutcome(threshold: t.description, met: !result.breachedThresholds.contains(t))
        }
        counts = result.counts
        historyHash = result.history.hash
        let h = result.history
        documents = h.documentNames.indices.map { d in
            DocumentClients(name: h.documentNames[d], clients: h.clients(of: d).map { h.clientNames[$0] })
        }
        replayCommand = ShellCommand.line(
            ["whalesim", "simulate", scenarioRef, "--seed", "\(result.seed)"] + overrides.arguments)
        if let shrunk {
            let r = shrunk.result
            self.shrunk = Shrunk(
                seed: shrunk.seed, clients: r.scenario.clients, documents: r.scenario.documents, ops: r.scenario.ops,
                runs: shrunk.runs, replayCommand: shrunk.replayCommand(scenarioRef: scenarioRef),
                evidence: r.results.filter { $0.verdict == .invalid }.flatMap {
                    ["\($0.checker.rawValue): "] + $0.evidence
                },
                history: Self.shrunkHistoryFile)
        }
    }

    public func json() throws -> Data {
        let encoder = JSONEncoder()
        // One line, sorted keys: `jq .` prints it indented; the indentation took a third of the file.
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}
