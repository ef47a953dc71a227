import Foundation
import WhaleRecord

/// A `History` to and from a run directory's history file: written in the compact form
/// (`history.whr`), read in either form (an older run's `history.jsonl` too), a line at a time.
///
/// ```swift
/// try RecordHistory.write(result.history, to: dir + "/history.whr")
/// let lines = try RecordHistory.readNamed(HistoryFiles.history(in: dir))   // for merge, reproduce
/// ```
public enum RecordHistory {
    public static func write(_ history: History, to path: String) throws {
        let writer = try HistoryFileWriter(path: path)
        try history.forEachJSONLine { try writer.append($0) }
        try writer.finish()
    }

    /// The file's lines as named events. Throws `RecordFileError` (missing, truncated, corrupt)
    /// or `HistoryDecodeError` (a line that is not an event), each naming the file.
    public static func readNamed(_ path: String) throws -> [NamedHistoryLine] {
        var out: [NamedHistoryLine] = []
        try forEachNamed(path) { out.append($0) }
        return out
    }

    /// The file's lines as named events, one at a time (nothing kept); `body` gets each line's
    /// event and its line number. Throws as ``readNamed(_:)`` does, or what `body` throws.
    public static func forEachNamed(_ path: String, _ body: (NamedHistoryLine, Int) throws -> Void) throws {
        var number = 0
        try HistoryFiles.forEachLine(path) { line in
            number += 1
            if line.isEmpty { return }
            try body(try History.decodeJSONLine(Data(line), source: path, number: number), number)
        }
    }

    public static func forEachNamed(_ path: String, _ body: (NamedHistoryLine) throws -> Void) throws {
        try forEachNamed(path) { line, _ in try body(line) }
    }
}
