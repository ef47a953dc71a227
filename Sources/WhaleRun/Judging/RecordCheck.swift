import Foundation
import WhaleRecord
import WhaleSim

/// Re-judges a recorded live run from its history file: the history rebuilt (packed, as the runner
/// held it) from `run.json`'s notes and clients and the history's lines, then the checkers the run
/// named. For a record made before a checker fix, and to measure what judging costs.
///
/// ```swift
/// let judged = try RecordCheck.judge("Reports/soak/latest")
/// print(Checkers.merged(judged.results))
/// ```
public enum RecordCheck {
    public struct Judged: Sendable {
        public var scenario: String
        public var seed: UInt64
        /// The run's own verdicts, as its `run.json` holds them.
        public var recorded: [LiveRunRecord.CheckerVerdict]
        public var results: [CheckResult]
        public var events: Int
        /// The bytes the rebuilt (packed) history held.
        public var packedBytes: Int
    }

    /// Throws `RecordFileError` (no history, or a damaged one), `HistoryDecodeError` (a line that is
    /// not an event) or `RecordError` (no live `run.json`, or a line naming a client it does not list).
    /// `only`: judge with these checkers instead of the ones the run named.
    public static func judge(_ dir: String, only: [CheckerName]? = nil) throws -> Judged {
        let path = try HistoryFiles.history(in: dir)
        let runJSON = (dir as NSString).appendingPathComponent("run.json")
        guard let data = FileManager.default.contents(atPath: runJSON) else {
            throw RecordFileError.missing("\(dir): no run.json")
        }
        let record: LiveRunRecord
        do { record = try JSONDecoder().decode(LiveRunRecord.self, from: data) } catch {
            throw RecordError(
                "\(runJSON): not a live run record (a simulator run is judged again by its replay command): \(error)")
        }
        var scenario = LiveMerge.scenario(from: record)
        if let only { scenario.checkers = only }
        var history = try rebuild(path, documents: record.documents, protocolVersion: scenario.protocolVersion)
        let results = LiveJudge.checks(scenario, history)
        let events = history.count, bytes = history.packedBytes ?? 0
        history = history.emptyCopy()
        return Judged(
            scenario: record.scenario, seed: record.seed, recorded: record.verdicts, results: results, events: events,
            packedBytes: bytes)
    }

    /// The history of a record whose notes and clients are `documents`, its lines read a line at
    /// a time into a packed history (the lines themselves are not kept).
    static func rebuild(_ path: String, documents: [LiveRunRecord.DocumentClients], protocolVersion: Int) throws
        -> History
    {
        var clientNames: [String] = [], clientDocuments: [Int] = []
        for (d, doc) in documents.enumerated() {
            clientNames += doc.clients
            clientDocuments += Array(repeating: d, count: doc.clients.count)
        }
        let clientIndex = Dictionary(clientNames.enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
        let documentIndex = Dictionary(documents.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { a, _ in a })
        var history = History(
            clientNames: clientNames, clientDocuments: clientDocuments, documentNames: documents.map(\.name),
            initialTexts: documents.map { $0.initialText ?? "" }, protocolVersion: protocolVersion, packed: true)
        var unknownName: String?
        try RecordHistory.forEachNamed(path) { named, number in
            let event = named.event(
                { name in
                    if let i = clientIndex[name] { return i }
                    unknownName = unknownName ?? "\(path):\(number): client \(name) is not among run.json's clients"
                    return 0
                },
                { name in
                    if let d = documentIndex[name] { return d }
                    unknownName = unknownName ?? "\(path):\(number): note \(name) is not among run.json's notes"
                    return 0
                })
            if let unknownName { throw RecordError(unknownName) }
            if let event { history.append(event, at: named.time) }
        }
        return history
    }
}
