import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// A server in a child process of this same executable (`whalesim serve ...` or
/// `whalesim bench raw-server ...`), so the load and the server do not share a heap or a
/// scheduler queue. Reads the `http: URL` line the child prints once it listens.
///
/// The child's standard input is a pipe whose write end only this process holds: when this
/// process ends, however it ends (even SIGKILL), the child reads end of file, and a child
/// started with `serve --stop-on-stdin-eof` stops as on SIGTERM, so no server outlives its run.
/// Secrets go in `environment` (readable by the owner only, `/proc/PID/environ`), never in the
/// arguments (`/proc/PID/cmdline`, shown to every local user by `ps`).
public final class ChildServer: @unchecked Sendable {
    public let process = Process()
    /// The write end of the child's standard input, held open (never written) for the child's life.
    private let lifeline = Pipe()
    public let baseURL: String
    public var socketURL: String { baseURL.replacingOccurrences(of: "http://", with: "ws://") + "/socket" }
    public var pid: Int32 { process.processIdentifier }

    /// The running executable (`whalesim` when called from the CLI).
    public static var selfExecutable: String { URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path }

    /// Starts `EXECUTABLE ARGUMENTS` (default: this executable; optionally under `taskset -c CPUS`)
    /// and waits for its URL.
    public init(
        _ arguments: [String], executable: String = ChildServer.selfExecutable, cpus: String? = nil,
        environment: [String: String] = [:], timeout: Duration = .seconds(60)
    ) throws {
        if let cpus {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/taskset")
            process.arguments = ["-c", cpus, executable] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        }
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.standardError
        process.standardInput = lifeline
        // Foundation closes every other descriptor in the child and the read end here after the
        // spawn: the write end lives only in this process, so its end is the end of the child's input.
        try process.run()
        RunCleanup.register(pid: process.processIdentifier)
        let handle = out.fileHandleForReading
        var buffer = ""
        let deadline = ContinuousClock.now + timeout
        while !buffer.contains("\n") || !buffer.contains("http: ") {
            guard ContinuousClock.now < deadline, process.isRunning else {
                process.terminate()
                process.waitUntilExit()
                RunCleanup.unregister(pid: process.processIdentifier)
                throw EmbeddedError("the server child (\(arguments.joined(separator: " "))) did not start: \(buffer)")
            }
            let data = handle.availableData
            if data.isEmpty { Thread.sleep(forTimeInterval: 0.01); continue }
            buffer += String(decoding: data, as: UTF8.self)
        }
        let line = buffer.split(separator: "\n").first { $0.hasPrefix("http: ") } ?? ""
        baseURL = String(line.dropFirst("http: ".count))
    }

    /// Resident memory of the child, in bytes (VmRSS).
    public var residentBytes: Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }.map { $0 * 1024 }
        }
        return nil
    }

    /// How long a SIGTERM'd child may take to commit and close its sockets before it is killed.
    public static let stopGraceSeconds = 15.0

    /// SIGTERM, then waits for the child; one still running after ``stopGraceSeconds`` is
    /// SIGKILLed (a server that cannot finish its shutdown must not hang the run). Blocks the
    /// calling thread: from Swift concurrency, use ``stopped()``.
    public func stop(graceSeconds: Double = ChildServer.stopGraceSeconds) {
        defer { RunCleanup.unregister(pid: pid) }
        guard process.isRunning else { return }
        kill(pid, SIGTERM)
        if !waitForExit(seconds: graceSeconds) {
            kill(pid, SIGKILL)
            _ = waitForExit(seconds: .infinity)
        }
    }

    /// SIGKILL (nothing flushed, nothing closed cleanly), then waits for the child. Blocks the
    /// calling thread: from Swift concurrency, use ``killed()``.
    public func kill9() {
        defer { RunCleanup.unregister(pid: pid) }
        guard process.isRunning else { return }
        kill(pid, SIGKILL)
        _ = waitForExit(seconds: .infinity)
    }

    /// ``stop()`` on a Dispatch thread. Swift's tasks run on the event loops, and a loop that
    /// blocks waiting for the child cannot answer the child's closing of the sockets that loop
    /// serves, while the child's graceful shutdown waits for exactly that: a CLI test's run hung
    /// so, the server half-closed and the runner's loop parked in the wait.
    public func stopped(graceSeconds: Double = ChildServer.stopGraceSeconds) async {
        await Self.offTheLoops { self.stop(graceSeconds: graceSeconds) }
    }

    /// ``kill9()`` on a Dispatch thread (the same reason).
    public func killed() async { await Self.offTheLoops { self.kill9() } }

    private static func offTheLoops(_ body: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                body(); c.resume()
            }
        }
    }

    /// Polls for the child's exit (`Process.waitUntilExit` spins a run loop at full CPU); true if it exited.
    private func waitForExit(seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning {
            if Date() >= deadline { return false }
            Thread.sleep(forTimeInterval: 0.005)
        }
        return true
    }
}
