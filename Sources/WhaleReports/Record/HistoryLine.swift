/// One line of a run's history (as `whalesim history` prints it, and older runs' `history.jsonl`
/// held it): the time, the event type and its fields. Unknown types and fields are kept, so a newer
/// runner's history still renders.
public struct HistoryLine: Sendable, Equatable {
    public var t: Int
    public var type: String
    public var fields: [String: FieldValue]

    public enum FieldValue: Sendable, Equatable, CustomStringConvertible {
        case int(Int), string(String), bool(Bool), null

        public var description: String {
            switch self {
            case .int(let n): String(n)
            case .string(let s): s
            case .bool(let b): String(b)
            case .null: "null"
            }
        }
    }

    public init(t: Int, type: String, fields: [String: FieldValue] = [:]) {
        self.t = t
        self.type = type
        self.fields = fields
    }

    public func string(_ key: String) -> String? {
        if case .string(let s) = fields[key] { return s }
        return nil
    }

    public func int(_ key: String) -> Int? {
        if case .int(let n) = fields[key] { return n }
        return nil
    }

    public func bool(_ key: String) -> Bool? {
        if case .bool(let b) = fields[key] { return b }
        return nil
    }

    public var client: String? { string("client") }
    public var opId: String? { string("opId") }

    /// Parses a whole `history.jsonl` text; `file` names it in errors (with the line number).
    public static func parse(_ text: String, file: String) throws -> [HistoryLine] {
        try parse(Array(text.utf8), file: file)
    }

    /// Parses the bytes of a whole `history.jsonl` file, one object a line (blank lines skipped).
    public static func parse(_ bytes: [UInt8], file: String) throws -> [HistoryLine] {
        var lines: [HistoryLine] = []
        var number = 0, start = 0
        while start < bytes.count {
            var end = start
            while end < bytes.count, bytes[end] != 0x0A { end += 1 }
            number += 1
            defer { start = end + 1 }
            if end == start || (end == start + 1 && bytes[start] == 0x0D) { continue }
            guard let (t, type, fields) = FlatJSON.object(bytes, start..<end) else {
                throw ReportError.corrupt(
                    "\(file):\(number): not a history line (a flat JSON object with \"t\" and \"type\")")
            }
            lines.append(HistoryLine(t: t, type: type, fields: fields))
        }
        return lines
    }
}
