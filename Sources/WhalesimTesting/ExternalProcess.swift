import Foundation

/// Subprocesses and paths for tests that drive programs nobody here wrote (python3, curl) or the
/// built `whalesim` binary: run to completion with a timeout, output captured.
public enum ExternalProcess {
    /// The package root, found from this file's path (no Bundle.module needed).
    public static let packageRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    }()

    /// What a finished program printed and how it exited.
    public struct Output: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String
    }

    /// Runs a program to completion (killed after `timeout`), capturing its output.
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                    timeout: Duration = .seconds(120), whileRunning: (@Sendable () async -> Void)? = nil) async throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Drain both pipes on Dispatch threads (blocking reads must stay off the cooperative pool,
        // which has one thread per core) so a chatty child never blocks on a full pipe.
        let outText = drain(out), errText = drain(err)
        let watcher = Task { await whileRunning?() }
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            if ContinuousClock.now > deadline {
                process.terminate()
                break
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        process.waitUntilExit()
        watcher.cancel()
        return Output(status: process.terminationStatus, stdout: await outText.value, stderr: await errText.value)
    }

    private static func drain(_ pipe: Pipe) -> Task<String, Never> {
        let handle = pipe.fileHandleForReading
        return Task {
            await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    continuation.resume(returning: String(decoding: handle.readDataToEndOfFile(), as: UTF8.self))
                }
            }
        }
    }

    /// `python3` on PATH, or nil.
    public static func python3() -> String? {
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/usr/local/bin").split(separator: ":") {
            let candidate = "\(directory)/python3"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// A fresh directory under the system's temporary directory, removed when the test process
    /// exits, unless `WHALESIM_KEEP_TEMP=1` is set (to look at what a failing test left).
    public static func temporaryDirectory(_ name: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("whalesim-\(name)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        TemporaryDirectories.add(url)
        return url
    }
}
