import Foundation
import WhaleReports
import WhaleSim

/// Writes `Reports/<scenario>/<timestamp>-seed<N>/` with `run.json`, `history.jsonl` (and
/// `shrunk-history.jsonl` for a shrunk failure), then renders `report.html`, `junit.xml` and
/// `summary.json` from those files (as `whalesim report` would), and points
/// `Reports/<scenario>/latest` and `Reports/latest` at it. The timestamp is the only
/// wall-clock use, outside the simulated path.
enum ReportWriter {
    static func write(record: RunRecord, history: History, shrunkHistory: History?, scenario: String, seed: UInt64,
                      root: String, startedAt: Date) throws -> String {
        let fm = FileManager.default
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        let stamp = formatter.string(from: startedAt)
        let scenarioDir = (root as NSString).appendingPathComponent(scenario)
        var name = "\(stamp)-seed\(seed)"
        var n = 2
        while fm.fileExists(atPath: (scenarioDir as NSString).appendingPathComponent(name)) {
            name = "\(stamp)-seed\(seed)-\(n)"
            n += 1
        }
        let dir = (scenarioDir as NSString).appendingPathComponent(name)
        try fm.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try record.json().write(to: URL(fileURLWithPath: (dir as NSString).appendingPathComponent("run.json")))
        try Data(history.jsonLines().utf8).write(to: URL(fileURLWithPath: (dir as NSString).appendingPathComponent("history.jsonl")))
        if let shrunkHistory {
            try Data(shrunkHistory.jsonLines().utf8).write(to: URL(fileURLWithPath: (dir as NSString).appendingPathComponent(RunRecord.shrunkHistoryFile)))
        }
        try ReportFiles.write(RunDirectory.load(dir))
        try relink((scenarioDir as NSString).appendingPathComponent("latest"), to: name)
        try relink((root as NSString).appendingPathComponent("latest"), to: (scenario as NSString).appendingPathComponent(name))
        return dir
    }

    /// Points the symbolic link `link` at `target` (relative to the link's directory), replacing
    /// it atomically: a new link beside it renamed over it, so runs finishing together (CI jobs
    /// sharing a Reports directory) never see the link missing or fail to create it.
    static func relink(_ link: String, to target: String) throws {
        let temporary = "\(link).\(ProcessInfo.processInfo.processIdentifier).tmp"
        try? FileManager.default.removeItem(atPath: temporary)
        try FileManager.default.createSymbolicLink(atPath: temporary, withDestinationPath: target)
        guard rename(temporary, link) == 0 else {
            let code = errno
            try? FileManager.default.removeItem(atPath: temporary)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: link, NSUnderlyingErrorKey: POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)])
        }
    }

    /// ISO 8601 in UTC, seconds precision: `2026-11-22T18:43:19Z`.
    static func iso8601(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss'Z'"
        return formatter.string(from: date)
    }
}
