#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The history of a run directory, in either form: the compact `history.whr` that runs write
/// now, or the `history.jsonl` of older directories. Every reader goes through here, so both
/// forms read the same: one JSON object a line.
///
/// ```swift
/// let path = try HistoryFiles.history(in: "Reports/latest")
/// try HistoryFiles.forEachLine(path) { line in /* one JSON object, no newline */ }
/// ```
public enum HistoryFiles {
    /// The compact history of a run, and of its shrunk reproducer (named by `run.json`'s `shrunk.history`).
    public static let compactName = "history.whr"
    public static let shrunkCompactName = "shrunk-history.whr"
    /// What older run directories hold instead.
    public static let legacyName = "history.jsonl"

    /// The history file in `dir`: the compact one, else the JSON lines of an older run.
    public static func history(in dir: String) throws(RecordFileError) -> String {
        for name in [compactName, legacyName] {
            let path = join(dir, name)
            if access(path, F_OK) == 0 { return path }
        }
        throw .missing("\(join(dir, compactName)): missing (nor is there a \(legacyName))")
    }

    static func join(_ dir: String, _ name: String) -> String { dir.hasSuffix("/") ? dir + name : dir + "/" + name }

    /// Calls `body` with each line of the history file at `path`, whichever its form (a `.whr`
    /// file is compact, whatever its first bytes say; another one is when it starts with the
    /// magic, else it is JSON lines). Lines of a JSON-lines file come as they are, blank ones
    /// included (line numbers stay right); a compact file has no blank lines.
    public static func forEachLine(_ path: String, _ body: ([UInt8]) throws -> Void) throws {
        if try isCompact(path) {
            let reader = try HistoryFileReader(path: path)
            while let line = try reader.next() { try body(line) }
        } else {
            try forEachJSONLine(path, body)
        }
    }

    /// Every line at once (small histories and tests).
    public static func lines(_ path: String) throws -> [[UInt8]] {
        var out: [[UInt8]] = []
        try forEachLine(path) { out.append($0) }
        return out
    }

    /// Whether `path` is a compact history: named `.whr`, or starting with the format's magic.
    public static func isCompact(_ path: String) throws(RecordFileError) -> Bool {
        if path.hasSuffix(".whr") { return true }
        guard let f = fopen(path, "rb") else { throw .missing("\(path): missing") }
        defer { fclose(f) }
        var head = [UInt8](repeating: 0, count: HistoryFileFormat.magic.count)
        let n = head.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, f) }
        return n == head.count && head == HistoryFileFormat.magic
    }

    /// Writes `lines` (JSON objects without newlines) as a compact history file.
    public static func write(_ lines: some Sequence<String>, to path: String) throws(RecordFileError) {
        let w = try HistoryFileWriter(path: path)
        for line in lines { try w.append(line) }
        try w.finish()
    }

    private static func forEachJSONLine(_ path: String, _ body: ([UInt8]) throws -> Void) throws {
        guard let f = fopen(path, "rb") else { throw RecordFileError.missing("\(path): missing") }
        defer { fclose(f) }
        var line: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, f) }
            if n == 0 {
                if ferror(f) != 0 { throw RecordFileError.io("\(path): cannot read") }
                break
            }
            var start = 0
            for i in 0..<n where chunk[i] == 0x0A {
                line += chunk[start..<i]
                try body(line)
                line.removeAll(keepingCapacity: true)
                start = i + 1
            }
            line += chunk[start..<n]
        }
        if !line.isEmpty { try body(line) }
    }
}
