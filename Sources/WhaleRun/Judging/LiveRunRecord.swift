import Foundation
import WhaleRecord
import WhaleReports
import WhaleSim

/// `run.json` of a live run (docs/run-record.md, schema 2, `timeUnit: ms`): what the reports
/// read, plus what only live runs and `merge` need: `mode`, the whole-run `histograms`
/// (HdrHistogram buckets, exact to merge), `metricThresholds` with their measured values,
/// `shard`, `errors`/`attempts` (for `errors.rate`) and the runner's `notes`.
public struct LiveRunRecord: Codable, Sendable {
    public struct CheckerVerdict: Codable, Sendable {
        public var checker: String
        public var verdict: String
        public var evidence: [String]
        public var findings: [String]?
    }
    public struct ThresholdOutcome: Codable, Sendable {
        public var threshold: String
        public var met: Bool
        /// Why it could not be judged (the load generator was saturated); absent when it was.
        public var unknown: String?
    }
    public struct Shard: Codable, Sendable {
        public var index: Int
        public var count: Int
    }
    public struct DocumentClients: Codable, Sendable {
        public var name: String
        public var clients: [String]
        /// The note's revision and text when the run began, when it already had a history
        /// (absent for a fresh note); the history's revisions count from there.
        public var baseRevision: Int?
        public var initialText: String?
    }

    public var schemaVersion = 3
    public var whalesimVersion = WhaleSimVersion.current
    public var mode = "live"
    public var scenario: String
    public var seed: UInt64
    public var timeUnit = "ms"
    public var startedAt: String?
    public var wallSeconds: Double?
    public var options: [String: String]
    public var verdict: String
    public var verdicts: [CheckerVerdict]
    public var thresholds: [ThresholdOutcome]
    public var metricThresholds: [LiveRunResult.MetricOutcome]
    public var counts: [String: Int]
    public var historyHash: String
    public var replayCommand: String
    public var documents: [DocumentClients]
    public var series: RunSeries
    public var salesforce: SalesforceFigures?
    /// Metric name → `[[value_us, count], ...]`. Packed in `run.json` (schema 3; ``PackedHistograms``).
    public var histograms: [String: [[UInt64]]] {
        get { histogramsField.metrics.mapValues { $0.first ?? [] } }
        set { histogramsField = PackedHistograms(metrics: newValue.mapValues { [$0] }) }
    }
    private var histogramsField = PackedHistograms()
    public var errors: Int
    public var attempts: Int
    public var shard: Shard?
    /// Set on a merged record: the shards it combines.
    public var shards: Int?
    /// Wall-clock start of the run's clock, ms since 1970.
    public var epochStartMs: Int64?
    /// Metric → one `[[value_us, count]]` per series bucket. Packed in `run.json` (schema 3).
    public var seriesHistograms: [String: [[[UInt64]]]]? {
        get { seriesHistogramsField?.metrics }
        set { seriesHistogramsField = newValue.map { PackedHistograms(metrics: $0) } }
    }
    private var seriesHistogramsField: PackedHistograms?
    public var aborted: String?
    /// The signal that interrupted the run (`SIGINT`, `SIGTERM`); absent for a run that ran its course.
    public var interrupted: String?
    public var notes: [String]
    /// A replay workload's request mix, recorded beside replayed (``ReplayRecord``).
    public var replay: ReplayRecord?
    /// The `{steady}` scope's window, [start, end) ms of the run clock, and the runner-lag bound
    /// past which latency thresholds are unknown.
    public var steadyWindow: [Int]?
    public var lagBoundMs: Int?
    /// `live.timer-grid` when the run had one (absent: every pause ended at its own instant).
    public var timerGridMs: Int?

    enum CodingKeys: String, CodingKey {
        case schemaVersion, whalesimVersion, mode, scenario, seed, timeUnit, startedAt, wallSeconds, options, verdict,
            verdicts,
            thresholds, metricThresholds, counts, historyHash, replayCommand, documents, series, salesforce, errors,
            attempts,
            shard, shards, epochStartMs, aborted, interrupted, notes, steadyWindow, lagBoundMs, timerGridMs, replay
        case histogramsField = "histograms", seriesHistogramsField = "seriesHistograms"
    }

    public init(result r: LiveRunResult, options o: LiveRunOptions, startedAt: Date, wallSeconds: Double) {
        let s = r.scenario
        let spec = s.live ?? LiveSpec()
        scenario = s.name
        seed = o.seed
        self.startedAt = RunDirectoryLayout.iso8601(startedAt)
        self.wallSeconds = wallSeconds
        options = [
            "clients": "\(s.clients)", "documents": "\(s.documents)", "protocol": "\(s.protocolVersion)",
            "load": spec.load.description, "duration": "\(spec.durationMs) ms", "server": spec.server.description,
            "salesforce": spec.salesforce.description, "thinkTime": spec.thinkTime.description,
            "keystroke": spec.keystroke.description,
            "faults": s.faults.joined(separator: ", "), "checkers": s.checkers.map(\.rawValue).joined(separator: ", "),
            "nemeses": s.nemeses.map { n in
                "\(n.kind.rawValue) " + (n.every.map { "every \($0)" } ?? "at \(n.at)") + " for \(n.duration)"
            }.joined(separator: "; "),
            "networkFaults": spec.networkFaults.map { "\($0.kind.rawValue) at \($0.at) for \($0.durationMs)" }.joined(
                separator: "; "),
        ]
        if s.storageSync != .full { options["storageSynchronous"] = s.storageSync.rawValue }
        // A fault window that could not be carried out is never a pass.
        verdict = !r.unavailable.isEmpty && r.verdict == .valid ? "unknown" : r.verdict.rawValue
        verdicts = r.results.map {
            CheckerVerdict(
                checker: $0.checker.rawValue, verdict: $0.verdict.rawValue, evidence: $0.evidence,
                findings: $0.findings.isEmpty ? nil : $0.findings)
        }
        thresholds =
            r.thresholds.map { ThresholdOutcome(threshold: $0.0.description, met: $0.1, unknown: nil) }
            + r.metricThresholds.map { m in
                ThresholdOutcome(
                    threshold: m.threshold + (m.actual == nil ? " (no samples)" : " (measured \(Self.format(m)))"),
                    met: m.met, unknown: m.unknown)
            }
        metricThresholds = r.metricThresholds
        counts = Self.counts(r)
        replay = r.replay
        historyHash = r.history.hash
        replayCommand = o.replayCommand
        let h = r.history
        documents = h.documentNames.indices.map { d in
            let base = d < r.baseRevisions.count ? r.baseRevisions[d] : 0
            return DocumentClients(
                name: h.documentNames[d], clients: h.clients(of: d).map { h.clientNames[$0] },
                baseRevision: base > 0 ? base : nil, initialText: base > 0 ? h.initialTexts[d] : nil)
        }
        series = r.series
        salesforce = r.salesforce
        histogramsField = PackedHistograms(metrics: r.histograms.mapValues { [$0.encoded] })
        errors = r.errors
        attempts = r.attempts
        shard = o.shard.map { Shard(index: $0.index, count: $0.count) }
        aborted = r.aborted
        interrupted = r.interrupted
        notes = r.notes
        epochStartMs = r.epochStartMs
        seriesHistogramsField = PackedHistograms(metrics: r.bucketHistograms)
        steadyWindow = r.steadyWindow.map { [$0.lowerBound, $0.upperBound] }
        lagBoundMs = spec.lagBoundMs
        timerGridMs = spec.timerGridMs > 0 ? spec.timerGridMs : nil
    }

    /// A measured value as thresholds show it: `12.34ms`, `0.120%`, `42`.
    public static func format(_ m: LiveRunResult.MetricOutcome) -> String {
        guard let v = m.actual, let t = try? MetricThreshold.parse(m.threshold).get() else { return "no samples" }
        return LiveJudge.show(v, metric: t.metric, stat: t.stat)
    }

    static func counts(_ r: LiveRunResult) -> [String: Int] {
        var c: [String: Int] = [
            "clients": r.clientsStarted, "errors": r.errors, "durationMs": r.durationMs,
            "historyEvents": r.history.count,
        ]
        for e in r.history.events {
            switch e.event {
            case .edit: c["edits", default: 0] += 1
            case .invoke: c["invoked", default: 0] += 1
            case .ack: c["acknowledged", default: 0] += 1
            case .failed: c["failed", default: 0] += 1
            case .disconnect: c["disconnects", default: 0] += 1
            case .serverRestart: c["serverRestarts", default: 0] += 1
            case .traffic(let messages, _, _): c["messages"] = messages
            default: break
            }
        }
        return c
    }

    public func json() throws -> Data {
        let encoder = JSONEncoder()
        // One line, sorted keys (`jq .` indents it): a live demo's record went from 2.7 MB to a tenth.
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}

/// `histograms` and `seriesHistograms` of a live `run.json`: metric → one `[[value_us, count]]`
/// list per bucket (one bucket for the whole-run histograms). Written as one packed string
/// (WhaleRecord's `HistogramPack`: varints, deflated, base64; schema 3); read from that or from
/// the arrays of pairs that schema 2 records hold.
struct PackedHistograms: Codable, Sendable {
    /// The packed form as read (checked, not unpacked: a reader that needs only the rest of
    /// `run.json`, such as `whalesim check`, does not pay for the buckets); unpacked on use.
    private var packed: String?
    private var unpacked: [String: [[[UInt64]]]]

    init(metrics: [String: [[[UInt64]]]] = [:]) { unpacked = metrics }

    var metrics: [String: [[[UInt64]]]] {
        // Checked when it was decoded, so it unpacks.
        guard let packed else { return unpacked }
        return (try? HistogramPack.unpack(packed)) ?? [:]
    }

    init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        unpacked = [:]
        if let text = try? c.decode(String.self) {
            do { try HistogramPack.validate(text) } catch {
                throw DecodingError.dataCorruptedError(in: c, debugDescription: "packed histograms: \(error.message)")
            }
            packed = text
        } else if let perBucket = try? c.decode([String: [[[UInt64]]]].self) {
            unpacked = perBucket
        } else {
            unpacked = try c.decode([String: [[UInt64]]].self).mapValues { [$0] }
        }
    }

    func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(packed ?? (try HistogramPack.pack(unpacked)))
    }
}

/// Writes a live run's directory: `run.json`, `history.whr` (the compact history), then the rendered
/// `report.html`, `junit.xml` and `summary.json`, and the `latest` links.
public enum LiveRecordWriter {
    public static func write(
        _ record: LiveRunRecord, history: History, root: String, startedAt: Date, suffix given: String? = nil
    ) throws -> String {
        let suffix = given ?? record.shard.map { "-shard\($0.index)of\($0.count)" } ?? ""
        let dir = try RunDirectoryLayout.create(
            root: root, scenario: record.scenario, seed: record.seed, startedAt: startedAt, suffix: suffix)
        try record.json().write(to: URL(fileURLWithPath: (dir as NSString).appendingPathComponent("run.json")))
        try RecordHistory.write(history, to: (dir as NSString).appendingPathComponent(HistoryFiles.compactName))
        try ReportFiles.write(RunDirectory.load(dir))
        try RunDirectoryLayout.linkLatest(root: root, scenario: record.scenario, dir: dir)
        return dir
    }
}
