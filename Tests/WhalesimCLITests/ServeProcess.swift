import Foundation
import Testing

/// A `whalesim serve` child of the built `.build/debug/whalesim` on a free port, for tests that
/// point runs at one server (shards, a rerun against kept notes). Stopped by `stop()`.
struct ServeProcess {
    let process: Process
    /// `http://127.0.0.1:PORT`, as the server printed it.
    let url: String

    /// Starts the server on `database` (`:memory:` or a SQLite file) and waits for its URL;
    /// `arguments` are added to `serve`'s (e.g. `--delay-acks 5`).
    init(database: String, arguments: [String] = []) throws {
        process = Process()
        process.executableURL = RunCommandTests.root.appendingPathComponent(".build/debug/whalesim")
        process.arguments =
            ["serve", "--port", "0", "--database", database, "--bcrypt-cost", "4", "--log-level", "error"] + arguments
        process.currentDirectoryURL = RunCommandTests.root
        let banner = Pipe()
        process.standardOutput = banner
        try process.run()
        var text = ""
        let deadline = Date().addingTimeInterval(60)
        while !text.contains("\n"), Date() < deadline {
            let d = banner.fileHandleForReading.availableData
            if d.isEmpty { Thread.sleep(forTimeInterval: 0.05) } else { text += String(decoding: d, as: UTF8.self) }
        }
        guard
            let url = text.split(separator: "\n").first(where: { $0.hasPrefix("http: ") }).map({
                String($0.dropFirst(6))
            })
        else {
            process.terminate()
            throw ServeFailed(printed: text)
        }
        self.url = url
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }

    struct ServeFailed: Error, CustomStringConvertible {
        var printed: String
        var description: String { "whalesim serve printed no URL: \(printed)" }
    }
}
