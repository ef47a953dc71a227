import Foundation
import WhaleSim

/// Writes `Reports/<scenario>/<timestamp>-seed<N>/{run.json,history.jsonl}` and points
/// `Reports/<scenario>/latest` at it. The timestamp is the only wall-clock use, outside the
/// simulated path.
enum ReportWriter {
    static func write(record: RunRecord, history: History, scenario: String, seed: UInt64, root: String) throws -> String {
        let fm = FileManager.default
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        let stamp = formatter.string(from: Date())
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
        let latest = (scenarioDir as NSString).appendingPathComponent("latest")
        try? fm.removeItem(atPath: latest)
        try fm.createSymbolicLink(atPath: latest, withDestinationPath: name)
        return dir
    }
}
