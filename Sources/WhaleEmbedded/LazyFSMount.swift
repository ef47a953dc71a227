import Foundation
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
    /// The running child and what it printed since its start (drop reports), read as it comes.
    private var child: Child?

    private struct Child {
        let process: Process
        let printed: PipeDrain
        let complaints: PipeDrain
    }

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
        // Read both pipes to their end, so a full pipe never blocks the child (drop reports).
        let printed = PipeDrain(out.fileHandleForReading, name: "lazyfs-out")
        let complaints = PipeDrain(err.fileHandleForReading, name: "lazyfs-err")
        let deadline = ContinuousClock.now + .seconds(15)
        while printed.takeLine(containing: "lazyfs: mounted") == nil {
            guard ContinuousClock.now < deadline, p.isRunning else {
                if p.isRunning { p.terminate() }
                p.waitUntilExit()
                complaints.waitForEnd(seconds: 1)
                let why = complaints.all.trimmingCharacters(in: .whitespacesAndNewlines)
                throw EmbeddedError(
                    "whalesim lazyfs could not mount \(mount.path): \(why.isEmpty ? "no answer in 15 s" : why)")
            }
            Thread.sleep(forTimeInterval: 0.01)
        }
        child = Child(process: p, printed: printed, complaints: complaints)
    }

    /// Forgets everything unsynced (`drop`, or `drop torn`); returns lazyfs's report of it
    /// (`dropped 3 files (45056 bytes), undid 1 namespace changes`).
    @discardableResult
    public func drop(torn: Bool) throws -> String {
        try Data((torn ? "drop torn\n" : "drop\n").utf8).write(to: controlFile)
        // The report is printed before the control file's write returns; the pipe may lag.
        let deadline = ContinuousClock.now + .seconds(2)
        while ContinuousClock.now < deadline {
            if let rest = child?.printed.takeLine(containing: "lazyfs: dropped") {
                return "dropped" + rest
            }
            Thread.sleep(forTimeInterval: 0.005)
        }
        return "dropped (no report from lazyfs)"
    }

    /// Makes everything written so far durable (`writeback`): the state a machine's disk has once
    /// the kernel wrote its old dirty pages back.
    public func writeback() throws { try Data("writeback\n".utf8).write(to: controlFile) }

    /// Unmounts: SIGTERM (libfuse unmounts on its way out), then a lazy unmount if it is still there.
    public func unmount() {
        guard let c = child else { return }
        child = nil
        let p = c.process
        if p.isRunning {
            kill(p.processIdentifier, SIGTERM)
            let deadline = ContinuousClock.now + .seconds(5)
            while p.isRunning, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.01) }
            if p.isRunning { kill(p.processIdentifier, SIGKILL) }
            p.waitUntilExit()
        }
        c.printed.waitForEnd(seconds: 2)
        c.complaints.waitForEnd(seconds: 2)
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
