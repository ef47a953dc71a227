import Foundation
import NIOConcurrencyHelpers
#if canImport(Glibc)
    import Glibc
#endif

/// What this process must take down if it has to stop at once (a second SIGINT or SIGTERM):
/// its child processes and its temporary directories. Children and directories register while
/// they live; ``emergencyStop()`` kills and removes whatever is still registered, from any thread.
///
/// A parent killed with SIGKILL cannot clean up: its `whalesim serve` child notices the end of
/// its standard input instead (``ChildServer``), and the next run removes the directories of
/// runs whose process is gone (``sweepStaleDirectories()``).
public enum RunCleanup {
    private static let state = NIOLockedValueBox<(pids: Set<Int32>, directories: Set<String>)>(([], []))

    /// The prefix of every temporary directory a run creates: `whalesim-run-<pid>-...`.
    public static let directoryPrefix = "whalesim-run-"

    public static func register(pid: Int32) { state.withLockedValue { _ = $0.pids.insert(pid) } }
    public static func unregister(pid: Int32) { state.withLockedValue { _ = $0.pids.remove(pid) } }
    public static func register(directory: URL) { state.withLockedValue { _ = $0.directories.insert(directory.path) } }
    public static func unregister(directory: URL) {
        state.withLockedValue { _ = $0.directories.remove(directory.path) }
    }

    /// A fresh `whalesim-run-<pid>-<tag>-<random>` directory under the system's temporary
    /// directory, registered for ``emergencyStop()``; the caller removes it and unregisters.
    public static func makeDirectory(tag: String? = nil) throws -> URL {
        let name = directoryPrefix + "\(getpid())-" + (tag.map { "\($0)-" } ?? "") + UUID().uuidString.prefix(8)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        register(directory: url)
        return url
    }

    /// Removes a directory made by ``makeDirectory(tag:)`` and forgets it.
    public static func remove(directory: URL) {
        try? FileManager.default.removeItem(at: directory)
        unregister(directory: directory)
    }

    /// SIGKILL to every registered child (reaped, so none is left a zombie), then every
    /// registered directory removed. Safe to call more than once.
    public static func emergencyStop() {
        let (pids, directories) = state.withLockedValue { s in
            defer { s = ([], []) }
            return s
        }
        stop(pids: pids, directories: directories)
    }

    /// SIGKILL and reap each of `pids`, then remove each of `directories`.
    static func stop(pids: Set<Int32>, directories: Set<String>) {
        for pid in pids.sorted() {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            _ = waitpid(pid, &status, 0)
        }
        for path in directories.sorted() { try? FileManager.default.removeItem(atPath: path) }
    }

    /// Removes `whalesim-run-<pid>-*` directories whose process is gone (a run killed with
    /// SIGKILL could not remove its own); returns how many.
    @discardableResult
    public static func sweepStaleDirectories(in root: URL = FileManager.default.temporaryDirectory) -> Int {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: root.path) else { return 0 }
        var removed = 0
        for name in names.sorted() where name.hasPrefix(directoryPrefix) {
            let rest = name.dropFirst(directoryPrefix.count)
            guard let pid = rest.split(separator: "-").first.flatMap({ Int32($0) }), pid > 0, pid != getpid() else {
                continue
            }
            // Gone: no such process (ESRCH). A live process of someone else (EPERM) keeps its directory.
            if kill(pid, 0) != 0, errno == ESRCH {
                if (try? FileManager.default.removeItem(at: root.appendingPathComponent(name))) != nil { removed += 1 }
            }
        }
        return removed
    }
}
