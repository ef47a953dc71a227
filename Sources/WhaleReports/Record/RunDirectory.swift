import Foundation

/// A run directory read back from disk: `run.json`, `history.jsonl` and, for a shrunk
/// failure, the shrunk run's history. Everything the reports render comes from here.
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
    public static let historyFile = "history.jsonl"

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
        let history = try readHistory(path, historyFile)
        let shrunk = try record.shrunk?.history.map { try readHistory(path, $0) }
        var run = RunDirectory(path: path, record: record, history: history, shrunkHistory: shrunk)
        let reproducerPath = (path as NSString).appendingPathComponent(ReproducerFile.fileName)
        if let data = fm.contents(atPath: reproducerPath) {
            do { run.reproducer = try JSONDecoder().decode(ReproducerFile.self, from: data) } catch {
                throw ReportError.corrupt("\(reproducerPath): not a reproducer summary: \(error)")
            }
        }
        return run
    }

    private static func readHistory(_ dir: String, _ name: String) throws -> [HistoryLine] {
        let file = (dir as NSString).appendingPathComponent(name)
        guard let data = FileManager.default.contents(atPath: file) else {
            throw ReportError.missing("\(file): missing (the run record names it)")
        }
        let bytes = [UInt8](data)
        guard String(validating: bytes, as: UTF8.self) != nil else { throw ReportError.corrupt("\(file): not UTF-8") }
        return try HistoryLine.parse(bytes, file: file)
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
