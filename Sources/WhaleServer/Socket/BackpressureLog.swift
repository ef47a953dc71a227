import Foundation
import NIOConcurrencyHelpers

/// The `--backpressure-log` file: one JSON line each time the server marks a connection slow
/// or drained (`{"ms":1764139200123,"client":"c001.mk3x9","slow":true}`, Unix milliseconds).
/// Only the server knows when it did; a live run reads the file after the load and puts each
/// change in its history, so `whalesim reproduce` can put `slow`/`unslow` steps where they were.
final class BackpressureLog: Sendable {
    private let handle: NIOLockedValueBox<FileHandle?>

    /// Opens `path` for appending (created if missing); nil when it cannot be written.
    init?(path: String) {
        if !FileManager.default.fileExists(atPath: path) {
            guard FileManager.default.createFile(atPath: path, contents: nil) else { return nil }
        }
        guard let h = FileHandle(forWritingAtPath: path) else { return nil }
        h.seekToEndOfFile()
        handle = NIOLockedValueBox(h)
    }

    /// Writes one change, at once (a SIGKILLed server's earlier lines stay in the file).
    func write(client: String, slow: Bool) {
        let ms = Int64((Date().timeIntervalSince1970 * 1000).rounded())
        // Client ids are the server's own (`ClientID`): no quote or backslash to escape, but be safe.
        let id = client.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        let line = Data("{\"ms\":\(ms),\"client\":\"\(id)\",\"slow\":\(slow)}\n".utf8)
        handle.withLockedValue { $0?.write(line) }
    }
}
