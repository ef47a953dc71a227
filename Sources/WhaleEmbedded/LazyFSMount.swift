import Foundation
import NIOConcurrencyHelpers
#if canImport(Glibc)
    import Glibc
#endif

/// `whalesim lazyfs` as a child process: the embedded server's database directory for a run with
/// power-loss windows. A power loss is: the server killed (SIGKILL), `drop` written to the
/// control file, the filesystem unmounted (SIGTERM; nothing unsynced is left to lose) and
/// mounted again over the same backing directory, as a machine comes back with a cold cache.
/// `whalesim bench server --lazyfs` measures the server on it.
public final class LazyFSMount: @unchecked Sendable {
    public let executable: String
    public let backing: URL
    public let mount: URL
    private var process: Process?
    /// What the child printed since its start (drop reports), read as it comes.
    private let printed = NIOLockedValueBox("")

    /// The control file under the mount.
    public var controlFile: URL { mount.appendingPathComponent(".lazyfs-control") }

    /// Mounts `mount` over `backing` (both created); throws, saying why, when FUSE cannot be had.
    public init(executable: String, backing: URL, mount: URL) throws {
        self.executable = executable
        self.backing = backing
        self.mount = mount
        try FileManager.default.createDirectory(at: backing, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: mount, withIntermediateDirectories: true)
        try start()
    }

    deinit { unmount() }

    /// Starts the child and waits for its `lazyfs: mounted` line.
    public func start() throws {
        guard access("/dev/fuse", R_OK | W_OK) == 0 else {
            throw EmbeddedError(
                "FUSE is not available here: /dev/fuse \(errno == ENOENT ? "does not exist" : "cannot be opened (\(String(cString: strerror(errno))))")"
            )
        }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = ["lazyfs", "--backing", backing.path, "--mount", mount.path]
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let handle = out.fileHandleForReading
        var buffer = ""
        let deadline = ContinuousClock.now + .seconds(15)
        while !buffer.contains("lazyfs: mounted") {
            guard ContinuousClock.now < deadline, p.isRunning else {
                if p.isRunning { p.terminate() }
                p.waitUntilExit()
                let why = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                    .trimmingCharacters(in: .whitespacesAndNewlines)
                throw EmbeddedError(
                    "whalesim lazyfs could not mount \(mount.path): \(why.isEmpty ? "no answer in 15 s" : why)")
            }
            let data = handle.availableData
            if data.isEmpty { Thread.sleep(forTimeInterval: 0.01); continue }
            buffer += String(decoding: data, as: UTF8.self)
        }
        // Keep reading its lines (drop reports), so a full pipe never blocks it.
        printed.withLockedValue { $0 = "" }
        handle.readabilityHandler = { [printed] h in
            let text = String(decoding: h.availableData, as: UTF8.self)
            printed.withLockedValue { $0 += text }
        }
        err.fileHandleForReading.readabilityHandler = { h in _ = h.availableData }
        process = p
    }

    /// Forgets everything unsynced (`drop`, or `drop torn`); returns lazyfs's report of it
    /// (`dropped 3 files (45056 bytes), undid 1 namespace changes`).
    @discardableResult
    public func drop(torn: Bool) throws -> String {
        try Data((torn ? "drop torn\n" : "drop\n").utf8).write(to: controlFile)
        // The report is printed before the control file's write returns; the pipe may lag.
        let deadline = ContinuousClock.now + .seconds(2)
        while ContinuousClock.now < deadline {
            let line = printed.withLockedValue { text -> String? in
                guard let range = text.range(of: "lazyfs: dropped") else { return nil }
                let rest = text[range.lowerBound...]
                guard let end = rest.firstIndex(of: "\n") else { return nil }
                text.removeSubrange(text.startIndex...end)
                return String(rest[rest.index(rest.startIndex, offsetBy: "lazyfs: ".count)..<end])
            }
            if let line { return line }
            Thread.sleep(forTimeInterval: 0.005)
        }
        return "dropped (no report from lazyfs)"
    }

    /// Makes everything written so far durable (`writeback`): the state a machine's disk has once
    /// the kernel wrote its old dirty pages back.
    public func writeback() throws { try Data("writeback\n".utf8).write(to: controlFile) }

    /// Unmounts: SIGTERM (libfuse unmounts on its way out), then a lazy unmount if it is still there.
    public func unmount() {
        guard let p = process else { return }
        process = nil
        if p.isRunning {
            kill(p.processIdentifier, SIGTERM)
            let deadline = ContinuousClock.now + .seconds(5)
            while p.isRunning, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.01) }
            if p.isRunning { kill(p.processIdentifier, SIGKILL) }
            p.waitUntilExit()
        }
        (p.standardOutput as? Pipe)?.fileHandleForReading.readabilityHandler = nil
        (p.standardError as? Pipe)?.fileHandleForReading.readabilityHandler = nil
        // A killed daemon leaves a dead mount behind ("transport endpoint is not connected").
        _ = umount2(mount.path, Int32(MNT_DETACH))
    }

    /// The power loss after the server was killed: drop, unmount, mount again. Returns the drop's report.
    public func losePower(torn: Bool) throws -> String {
        let report = try drop(torn: torn)
        unmount()
        try start()
        return report
    }
}
