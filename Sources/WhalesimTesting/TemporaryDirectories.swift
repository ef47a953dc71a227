import Foundation

/// The temporary directories tests made in this process, removed at exit. Swift Testing has no
/// process-wide teardown, and hundreds of suites each leaving a SQLite file or a CA behind filled
/// /tmp with thousands of directories.
enum TemporaryDirectories {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var paths: [String] = []
    nonisolated(unsafe) private static var registered = false

    static func add(_ url: URL) {
        lock.lock()
        defer { lock.unlock() }
        paths.append(url.path)
        if !registered {
            registered = true
            atexit { TemporaryDirectories.removeAll() }
        }
    }

    static func removeAll() {
        guard ProcessInfo.processInfo.environment["WHALESIM_KEEP_TEMP"] != "1" else { return }
        lock.lock()
        let all = paths
        paths = []
        lock.unlock()
        for path in all { try? FileManager.default.removeItem(atPath: path) }
    }
}
