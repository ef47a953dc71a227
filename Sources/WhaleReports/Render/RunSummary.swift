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
    /// Live runs: seconds the load generator was saturated (`saturated` windows) and seconds the
    /// machine was taken by other processes (`contended`), against the run's seconds. A comparison
    /// does not blame on a build what a busy machine did. Absent for simulated runs.
    public var saturatedSeconds: Int?
    public var contendedSeconds: Int?
    public var runSeconds: Int?
    /// Live runs with `live.timer-grid`: the step their users' pauses ended on (absent: none).
    /// Arrivals bunched into steps load a server differently, so a comparison of a run with a grid
    /// against one without (or with another) does not judge latency growth.
    public var timerGridMs: Int?

    /// A failed run's simulator reproducer (`reproducer.json`), when one was made: whether the
    /// failure reproduced, its replays, and which catalog fault a --server behaves like.
    public struct Reproducer: Codable, Sendable, Equatable {
        public var status: String
        public var checker: String
        public var replay: String
        public var shrunkReplay: String?
        /// The diagnosis' sentence, the named faults (empty: none), its side and how many fault sets it tried.
        public var diagnosis: String?
        public var faults: [String]?
        public var side: String?
        public var tried: Int?
        public var conform: [String]?
    }
    public var reproducer: Reproducer?
    /// A replay workload's request mix (`run.json`'s `replay`; `replay` here is the run's replay command).
    public var replayMix: RunRecordFile.ReplayMix?

    public init(run: RunDirectory, series: RunSeries) {
        let r = run.record
        scenario = r.scenario
        seed = r.seed
        verdict = r.verdict
        checkers = Dictionary(r.verdicts.map { ($0.checker, $0.verdict) }, uniquingKeysWith: VerdictRank.worse)
        thresholds = r.thresholds
        counts = r.counts
        latency = series.latency.mapValues { s in
            Latency(
                count: s.overall.count, p50: s.overall.p50, p90: s.overall.p90, p99: s.overall.p99, max: s.overall.max,
                unit: series.unit)
        }
        replay = r.replayCommand
        shrunkReplay = r.shrunk?.replayCommand
        historyHash = r.historyHash
        whalesimVersion = r.whalesimVersion
        interrupted = r.interrupted
        timerGridMs = r.timerGridMs
        replayMix = r.replay
        if let p = run.reproducer {
            reproducer = Reproducer(
                status: p.status, checker: p.checker, replay: p.replay, shrunkReplay: p.shrunk?.replay,
                diagnosis: p.diagnosis?.sentence, faults: p.diagnosis?.faults, side: p.diagnosis?.side,
                tried: p.diagnosis?.tried.count, conform: p.diagnosis?.conform)
        }
        if series.unit == "ms" {
            func seconds(_ kind: String) -> Int {
                series.faultWindows.filter { $0.kind == kind }.reduce(0) { $0 + max(0, $1.end - $1.start) } / 1000
            }
            saturatedSeconds = seconds("saturated")
            contendedSeconds = seconds("contended")
            runSeconds = series.end / 1000
        }
    }

    /// Why this run's latencies are not a fair measure of its build, if they are not: the
    /// generator saturated or the machine contended for more than `share` of the run.
    public func busyMachine(share: Double = 0.1) -> String? {
        guard let total = runSeconds, total > 0 else { return nil }
        var parts: [String] = []
        if let s = saturatedSeconds, Double(s) > share * Double(total) {
            parts.append("its load generator was saturated \(s) of \(total) s")
        }
        if let c = contendedSeconds, Double(c) > share * Double(total) {
            parts.append("its machine was busy with other processes \(c) of \(total) s")
        }
        return parts.isEmpty ? nil : parts.joined(separator: " and ")
    }

    /// Pretty, sorted-key JSON (deterministic).
    public func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}
