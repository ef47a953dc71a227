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
    /// The history's lines; for a run with its own series and documents (a live run), only the
    /// end-of-run ones (``summaryTypes``): see ``historyIsSummary``.
    public var history: [HistoryLine]
    public var shrunkHistory: [HistoryLine]?
    /// True when ``history`` holds only the end-of-run lines (``summaryTypes``): with the series
    /// and documents in `run.json`, the report needs nothing else in memory (a failed run's
    /// timeline reads the file again in passes, ``historyPasses``), so reading a long run's
    /// record keeps memory bounded by its clients and notes, not by its length.
    public var historyIsSummary = false
    /// Lines in the history file (all of them but blank ones, whether ``history`` keeps them or not).
    public var historyLineCount = 0
    /// The history file read, when this run was loaded from a directory.
    public var historyPath: String?

    /// The lines the report reads when the record has its series and documents: the end state
    /// (the convergence table).
    public static let summaryTypes: Set<String> = ["quiescence", "serverFinal", "clientFinal"]
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

    /// The whole history in passes: the file again when only the summary is in memory.
    var historyPasses: HistoryPasses {
        if historyIsSummary, let historyPath { return HistoryPasses(source: .file(historyPath)) }
        return HistoryPasses(source: .lines(history))
    }

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
            throw ReportError.corrupt(
                "\(recordPath): schemaVersion \(record.schemaVersion) is not supported (1...\(RunRecordFile.supportedSchemaVersion))"
            )
        }
        let historyPath: String
        do { historyPath = try HistoryFiles.history(in: path) } catch { throw ReportError.missing(error.message) }
        // A run without series derives them from the history, one without documents infers them:
        // those keep every line. A live run keeps the end state; its timeline, if it failed, is
        // read from the file in passes.
        let summary = record.series != nil && record.documents != nil
        let (history, lineCount) = try readHistory(historyPath, keep: summary ? { summaryTypes.contains($0) } : nil)
        let shrunk = try record.shrunk?.history.map {
            try readHistory((path as NSString).appendingPathComponent($0)).lines
        }
        var run = RunDirectory(path: path, record: record, history: history, shrunkHistory: shrunk)
        run.historyIsSummary = summary
        run.historyLineCount = lineCount
        run.historyPath = historyPath
        let reproducerPath = (path as NSString).appendingPathComponent(ReproducerFile.fileName)
        if let data = fm.contents(atPath: reproducerPath) {
            do { run.reproducer = try JSONDecoder().decode(ReproducerFile.self, from: data) } catch {
                throw ReportError.corrupt("\(reproducerPath): not a reproducer summary: \(error)")
            }
        }
        return run
    }

    /// Reads a history file of either form a line at a time (a compact file is never whole in memory).
    /// `keep`: which line types to keep (by `type`; nil keeps every line); every line is still
    /// read and checked, and counted, but only a kept one is built.
    static func readHistory(_ file: String, keep: ((String) -> Bool)? = nil) throws -> (
        lines: [HistoryLine], count: Int
    ) {
        var lines: [HistoryLine] = []
        var count = 0
        try forEachCheckedLine(file) { number, bytes in
            count += 1
            if let keep {
                guard let type = FlatJSON.type(bytes, 0..<bytes.count) else { throw notALine(file, number) }
                guard keep(type) else { return }
            }
            lines.append(try parse(bytes, file, number))
        }
        return (lines, count)
    }

    /// Calls `body` with each line of a history file of either form, parsed, blank lines of a
    /// JSON-lines file skipped; throws ``ReportError`` naming the file and line of a bad one.
    static func forEachParsedLine(_ file: String, _ body: (HistoryLine) throws -> Void) throws {
        try forEachCheckedLine(file) { number, bytes in try body(try parse(bytes, file, number)) }
    }

    /// Each line's number and bytes, blank lines skipped, after checking it is UTF-8.
    private static func forEachCheckedLine(_ file: String, _ body: (_ number: Int, _ bytes: [UInt8]) throws -> Void)
        throws
    {
        guard FileManager.default.fileExists(atPath: file) else {
            throw ReportError.missing("\(file): missing (the run record names it)")
        }
        var number = 0
        do {
            try HistoryFiles.forEachLine(file) { bytes in
                number += 1
                if bytes.isEmpty || bytes == [0x0D] { return }
                guard String(validating: bytes, as: UTF8.self) != nil else {
                    throw ReportError.corrupt("\(file):\(number): not UTF-8")
                }
                try body(number, bytes)
            }
        } catch let e as RecordFileError {
            if case .missing = e { throw ReportError.missing(e.message) }
            throw ReportError.corrupt(e.message)
        }
    }

    private static func parse(_ bytes: [UInt8], _ file: String, _ number: Int) throws -> HistoryLine {
        guard let (t, type, fields) = FlatJSON.object(bytes, 0..<bytes.count) else { throw notALine(file, number) }
        return HistoryLine(t: t, type: type, fields: fields)
    }

    private static func notALine(_ file: String, _ number: Int) -> ReportError {
        .corrupt("\(file):\(number): not a history line (a flat JSON object with \"t\" and \"type\")")
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
