import Foundation
import Logging

/// swift-log records as JSON lines on stderr (`whalesim serve --log-format json`): one object per
/// line with `ts`, `level`, `label`, `message` and every metadata key, for log collectors.
///
/// ```
/// {"level":"info","label":"whalesim.serve","message":"listening","ts":"2026-11-22T18:00:00.000Z","url":"http://127.0.0.1:8080"}
/// ```
public struct JSONLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level
    private let label: String
    private static let lock = NSLock()

    public init(label: String, level: Logger.Level) {
        self.label = label
        logLevel = level
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var object: [String: Any] = [
            "level": event.level.rawValue, "label": label, "message": "\(event.message)",
            "ts": Self.timestamp(),
        ]
        for (key, value) in metadata.merging(event.metadata ?? [:], uniquingKeysWith: { $1 }) {
            object[key] = "\(value)"
        }
        guard var line = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return }
        line.append(0x0a)
        Self.lock.withLock { FileHandle.standardError.write(line) }
    }

    private static func timestamp() -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date())
    }
}
