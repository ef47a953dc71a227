import WhaleRecord

/// A run's history read in passes: the lines already in memory, or the history file read again
/// on each pass. A long failed run's timeline is found this way (where it diverged, then the rows
/// around it) without ever holding its millions of lines.
///
/// ```swift
/// try run.historyPasses.each { row, line in
///     if line.type == "serverCrash" { print(row); return false }   // false: stop this pass
///     return true
/// }
/// ```
struct HistoryPasses {
    enum Source {
        case lines([HistoryLine])
        case file(String)
    }

    var source: Source

    /// Calls `body` with each line and its row (0-based, in file order) until it returns false.
    func each(_ body: (_ row: Int, _ line: HistoryLine) throws -> Bool) throws {
        switch source {
        case .lines(let lines):
            for (row, line) in lines.enumerated() where try !body(row, line) { return }
        case .file(let path):
            var row = 0
            do {
                try RunDirectory.forEachParsedLine(path) { line in
                    defer { row += 1 }
                    if try !body(row, line) { throw Stop() }
                }
            } catch is Stop {}
        }
    }

    private struct Stop: Error {}
}
