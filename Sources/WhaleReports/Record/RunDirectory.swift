import Foundation
import WhaleRecord

/// A run directory read back from disk: `run.json`, the history (`history.whr`, or the
/// `history.jsonl` of a run recorded before the compact form) and, for a shrunk failure, the
/// shrunk run's history. Everything the reports render comes from here.
///
/// ```swift
/// let run = try RunDirectory.load("Reports/flaky-network/latest")
/// try ReportFiles.write(run)   // report.html, junit.xml, summary.json
/// ```
public struct RunDirectory: Sendable {
    public var path: String
    public var record: RunRecordFile
    public var history: [HistoryLine]
    public var shrunkHistory: [HistoryLine]?
    /// `reproducer.json`, when `whalesim reproduce` (or a failing live run) wrote one.
    public var reproducer: ReproducerFile?

    public init(path: String, record: RunRecordFile, history: [HistoryLine], shrunkHistory: [HistoryLine]? = nil) {
        self.path = path
        self.record = record
        self.history = history
        self.shrunkHistory = shrunkHistory
    }

    public static let recordFile = "run.json"
    /// The history file of runs written now; ``load(_:)`` also reads an older run's `history.jsonl`.
    public static let historyFile = HistoryFiles.compactName

    /// Reads the directory (a `latest` link is followed). Throws ``ReportError`` naming the file.
    public static func load(_ path: String) throws -> RunDirectory {
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        guard fm.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ReportError.missing("\(path): no such run directory")
        }
        let recordPath = (path as NSString).appendingPathComponent(recordFile)
        guard let data = fm.contents(atPath: recordPath) else {
            throw ReportError.missing("\(recordPath): no run record (run.json) in this directory")
        }
        let record: RunRecordFile
        do {
            record = try JSONDecoder().decode(RunRecordFile.self, from: data)
        } catch let error as DecodingError {
            throw ReportError.corrupt("\(recordPath): not a run record: \(Self.describe(error))")
        } catch {
            throw ReportError.corrupt("\(recordPath): not a run record: \(error)")
        }
        guard record.schemaVersion >= 1, record.schemaVersion <= RunRecordFile.supportedSchemaVersion else {
            throw ReportError.corrupt("\(recordPath): schemaVersion \(record.schemaVersion) is not supported (1...\(RunRecordFile.supportedSchemaVersion))")
        }
        let historyPath: String
        do { historyPath = try HistoryFiles.history(in: path) } catch { throw ReportError.missing(error.message) }
        let history = try readHistory(historyPath)
        let shrunk = try record.shrunk?.history.map { try readHistory((path as NSString).appendingPathComponent($0)) }
        var run = RunDirectory(path: path, record: record, history: history, shrunkHistory: shrunk)
        let reproducerPath = (path as NSString).appendingPathComponent(ReproducerFile.fileName)
        if let data = fm.contents(atPath: reproducerPath) {
            do { run.reproducer = try JSONDecoder().decode(ReproducerFile.self, from: data) } catch {
                throw ReportError.corrupt("\(reproducerPath): not a reproducer summary: \(error)")
            }
        }
        return run
    }

    /// Reads a history file of either form a line at a time (a compact file is never whole in memory).
    static func readHistory(_ file: String) throws -> [HistoryLine] {
        guard FileManager.default.fileExists(atPath: file) else {
            throw ReportError.missing("\(file): missing (the run record names it)")
        }
        var lines: [HistoryLine] = []
        var number = 0
        do {
            try HistoryFiles.forEachLine(file) { bytes in
                number += 1
                if bytes.isEmpty || bytes == [0x0D] { return }
                guard String(validating: bytes, as: UTF8.self) != nil else { throw ReportError.corrupt("\(file):\(number): not UTF-8") }
                guard let (t, type, fields) = FlatJSON.object(bytes, 0..<bytes.count) else {
                    throw ReportError.corrupt("\(file):\(number): not a history line (a flat JSON object with \"t\" and \"type\")")
                }
                lines.append(HistoryLine(t: t, type: type, fields: fields))
            }
        } catch let e as RecordFileError {
            if case .missing = e { throw ReportError.missing(e.message) }
            throw ReportError.corrupt(e.message)
        }
        return lines
    }

    private static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
            return keys.isEmpty ? "" : " at \(keys)"
        }
        switch error {
        case .keyNotFound(let key, let c): return "missing key \"\(key.stringValue)\"\(path(c))"
        case .typeMismatch(_, let c), .valueNotFound(_, let c): return "\(c.debugDescription)\(path(c))"
        case .dataCorrupted(let c): return "invalid JSON\(path(c))"
        @unknown default: return "\(error)"
        }
    }
}
