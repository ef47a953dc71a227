import Foundation
import NIOConcurrencyHelpers

/// The `--backpressure-log` file: one JSON line each time the server marks a connection slow
/// or drained (`{"ms":1764139200123,"client":"c001.mk3x9","slow":true,"note":"acc-1000","revision":17}`:
/// Unix milliseconds, and the joined note's revision when the change took effect, if joined).
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

    /// Writes one change, at once (a SIGKILLed server's earlier lines stay in the file), with the
    /// note the connection has joined and its revision when the change took effect, if any.
    func write(client: String, slow: Bool, note: (resourceId: String, revision: Int)?) {
        let ms = Int64((Date().timeIntervalSince1970 * 1000).rounded())
        let joined = note.map { ",\"note\":\"\(Self.escaped($0.resourceId))\",\"revision\":\($0.revision)" } ?? ""
        let line = Data("{\"ms\":\(ms),\"client\":\"\(Self.escaped(client))\",\"slow\":\(slow)\(joined)}\n".utf8)
        handle.withLockedValue { $0?.write(line) }
    }

    /// Ids are the server's own (client ids, note ids): no quote or backslash, but be safe.
    private static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    }
}
