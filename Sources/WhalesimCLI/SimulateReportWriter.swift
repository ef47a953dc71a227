import Foundation
import WhaleRecord
import WhaleReports
import WhaleSim

/// Writes `Reports/<scenario>/<timestamp>-seed<N>/` with `run.json`, `history.whr` (and
/// `shrunk-history.whr` for a shrunk failure; both the compact history form), then renders `report.html`, `junit.xml` and
/// `summary.json` from those files (as `whalesim report` would), and points
/// `Reports/<scenario>/latest` and `Reports/latest` at it. The timestamp is the only
/// wall-clock use, outside the simulated path.
enum ReportWriter {
    static func write(
        record: RunRecord, history: History, shrunkHistory: History?, scenario: String, seed: UInt64,
        root: String, startedAt: Date
    ) throws -> String {
        let dir = try RunDirectoryLayout.create(root: root, scenario: scenario, seed: seed, startedAt: startedAt)
        try record.json().write(to: URL(fileURLWithPath: (dir as NSString).appendingPathComponent("run.json")))
        try RecordHistory.write(history, to: (dir as NSString).appendingPathComponent(HistoryFiles.compactName))
        if let shrunkHistory {
            try RecordHistory.write(
                shrunkHistory, to: (dir as NSString).appendingPathComponent(RunRecord.shrunkHistoryFile))
        }
        try ReportFiles.write(RunDirectory.load(dir))
        try RunDirectoryLayout.linkLatest(root: root, scenario: scenario, dir: dir)
        return dir
    }

    static func iso8601(_ date: Date) -> String { RunDirectoryLayout.iso8601(date) }
}
