import Foundation

/// Where a run's files go: `Reports/<scenario>/<timestamp>-seed<N>[-shard-i-of-N]/`, and the
/// `latest` links per scenario and overall. Shared by `simulate`, `run` and `merge`.
public enum RunDirectoryLayout {
    /// Creates a fresh run directory (a numeric suffix if the name is taken) and returns its path.
    public static func create(root: String, scenario: String, seed: UInt64, startedAt: Date, suffix: String = "") throws
        -> String
    {
        let fm = FileManager.default
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        let stamp = formatter.string(from: startedAt)
        let scenarioDir = (root as NSString).appendingPathComponent(scenario)
        var name = "\(stamp)-seed\(seed)\(suffix)"
        var n = 2
        while fm.fileExists(atPath: (scenarioDir as NSString).appendingPathComponent(name)) {
            name = "\(stamp)-seed\(seed)\(suffix)-\(n)"
            n += 1
        }
        let dir = (scenarioDir as NSString).appendingPathComponent(name)
        try fm.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// Points `<root>/<scenario>/latest` and `<root>/latest` at `dir`.
    public static func linkLatest(root: String, scenario: String, dir: String) throws {
        let name = (dir as NSString).lastPathComponent
        let scenarioDir = (root as NSString).appendingPathComponent(scenario)
        try relink((scenarioDir as NSString).appendingPathComponent("latest"), to: name)
        try relink(
            (root as NSString).appendingPathComponent("latest"), to: (scenario as NSString).appendingPathComponent(name)
        )
    }

    /// Points the symbolic link `link` at `target` (relative to the link's directory), replacing
    /// it atomically: a new link beside it renamed over it, so runs finishing together (CI jobs
    /// sharing a Reports directory) never see the link missing or fail to create it.
    public static func relink(_ link: String, to target: String) throws {
        let temporary = "\(link).\(ProcessInfo.processInfo.processIdentifier).tmp"
        try? FileManager.default.removeItem(atPath: temporary)
        try FileManager.default.createSymbolicLink(atPath: temporary, withDestinationPath: target)
        guard rename(temporary, link) == 0 else {
            let code = errno
            try? FileManager.default.removeItem(atPath: temporary)
            throw CocoaError(
                .fileWriteUnknown,
                userInfo: [
                    NSFilePathErrorKey: link, NSUnderlyingErrorKey: POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO),
                ])
        }
    }

    /// ISO 8601 in UTC, seconds precision: `2026-11-22T18:43:19Z`.
    public static func iso8601(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss'Z'"
        return formatter.string(from: date)
    }
}
