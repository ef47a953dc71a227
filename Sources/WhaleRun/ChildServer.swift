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
    public init(_ arguments: [String], executable: String = ChildServer.selfExecutable, cpus: String? = nil,
                environment: [String: String] = [:], timeout: Duration = .seconds(60)) throws {
        if let cpus {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/taskset")
            process.arguments = ["-c", cpus, executable] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        }
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
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
                throw LiveRunError("the server child (\(arguments.joined(separator: " "))) did not start: \(buffer)")
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

    /// SIGTERM, then waits for the child.
    public func stop() {
        defer { RunCleanup.unregister(pid: pid) }
        guard process.isRunning else { return }
        kill(pid, SIGTERM)
        process.waitUntilExit()
    }

    /// SIGKILL (nothing flushed, nothing closed cleanly), then waits for the child.
    public func kill9() {
        defer { RunCleanup.unregister(pid: pid) }
        guard process.isRunning else { return }
        kill(pid, SIGKILL)
        process.waitUntilExit()
    }
}
