import Foundation

/// `summary.json`: the verdicts and key figures of one run under stable keys, for CI tooling
/// and for `whalesim report --compare`. Keys never change meaning; new ones may be added.
///
/// ```json
/// {"schemaVersion":1,"scenario":"flaky-network","seed":1,"verdict":"valid",
///  "checkers":{"convergence":"valid",...},"thresholds":[{"threshold":"convergence == valid","met":true}],
///  "counts":{...},"latency":{"op_ack":{"count":380,"p50":31,"p90":80,"p99":160,"max":210,"unit":"ticks"}},
///  "replay":"whalesim simulate flaky-network --seed 1"}
/// ```
public struct RunSummary: Codable, Sendable, Equatable {
    public static let currentSchemaVersion = 1

    public struct Latency: Codable, Sendable, Equatable {
        public var count: Int
        public var p50: Double?
        public var p90: Double?
        public var p99: Double?
        public var max: Double?
        public var unit: String
    }

    public var schemaVersion = RunSummary.currentSchemaVersion
    public var scenario: String
    public var seed: UInt64
    public var verdict: String
    public var checkers: [String: String]
    public var thresholds: [RunRecordFile.ThresholdOutcome]
    public var counts: [String: Int]
    public var latency: [String: Latency]
    public var replay: String
    /// The shrunk failure's replay command, when the run failed and was shrunk.
    public var shrunkReplay: String?
    public var historyHash: String
    public var whalesimVersion: String
    /// The signal that interrupted a live run; absent when it ran its course.
    public var interrupted: String?

    public init(run: RunDirectory, series: RunSeries) {
        let r = run.record
        scenario = r.scenario
        seed = r.seed
        verdict = r.verdict
        checkers = Dictionary(r.verdicts.map { ($0.checker, $0.verdict) }, uniquingKeysWith: VerdictRank.worse)
        thresholds = r.thresholds
        counts = r.counts
        latency = series.latency.mapValues { s in
            Latency(count: s.overall.count, p50: s.overall.p50, p90: s.overall.p90, p99: s.overall.p99, max: s.overall.max, unit: series.unit)
        }
        replay = r.replayCommand
        shrunkReplay = r.shrunk?.replayCommand
        historyHash = r.historyHash
        whalesimVersion = r.whalesimVersion
        interrupted = r.interrupted
    }

    /// Pretty, sorted-key JSON (deterministic).
    public func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}
