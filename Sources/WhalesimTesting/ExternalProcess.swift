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
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:],
        timeout: Duration = .seconds(120), whileRunning: (@Sendable () async -> Void)? = nil
    ) async throws -> Output {
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

    /// The variable scripts/test sets to the test virtual environment's Python (`.venv/bin/python3`).
    public static let pythonVariable = "WHALESIM_TEST_PYTHON"

    /// What a test that lacks the Python clients should tell the reader.
    public static let pythonHint =
        "run scripts/setup --tests (it makes .venv with simple-salesforce and websockets; scripts/test sets $WHALESIM_TEST_PYTHON to its python3)"

    /// The Python the tests drive their external clients with: `$WHALESIM_TEST_PYTHON` (set by
    /// scripts/test), else the package's `.venv/bin/python3` (scripts/setup --tests makes it),
    /// else `python3` on PATH; nil when there is none. The system Python is only the last
    /// resort: the clients are installed in the virtual environment, never with system pip.
    public static func python3() -> String? {
        if let given = ProcessInfo.processInfo.environment[pythonVariable], !given.isEmpty,
            FileManager.default.isExecutableFile(atPath: given)
        {
            return given
        }
        let venv = packageRoot.appendingPathComponent(".venv/bin/python3").path
        if FileManager.default.isExecutableFile(atPath: venv) { return venv }
        return which("python3")
    }

    /// A program on PATH, or nil.
    public static func which(_ name: String) -> String? {
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/usr/local/bin").split(
            separator: ":")
        {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// A Chromium the browser test can drive: `chromium` (Debian's package; its launcher is a
    /// shell script), else `chromium-browser` only when it is a real browser, not Ubuntu's
    /// transitional stub that asks for the snap. Nil when there is none (the test skips, saying so).
    public static func chromium() -> String? {
        if let debian = which("chromium") { return debian }
        guard let other = which("chromium-browser") else { return nil }
        return isRealBrowser(other) ? other : nil
    }

    /// An ELF binary, or a launcher script that does not hand over to snap.
    static func isRealBrowser(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 64 * 1024)) ?? Data()
        if head.starts(with: [0x7F, 0x45, 0x4C, 0x46]) { return true }
        return !String(decoding: head, as: UTF8.self).contains("snap")
    }

    /// The built `whalesim` the tests run: beside the test bundle (the build folder the tests
    /// were built in), else `.build/debug/whalesim` of the package.
    public static var whalesimBinary: URL {
        let bundleDirectory = URL(fileURLWithPath: CommandLine.arguments.first ?? "").deletingLastPathComponent()
        for candidate in [bundleDirectory, bundleDirectory.deletingLastPathComponent()] {
            let binary = candidate.appendingPathComponent("whalesim")
            if FileManager.default.isExecutableFile(atPath: binary.path) { return binary }
        }
        return packageRoot.appendingPathComponent(".build/debug/whalesim")
    }

    /// A fresh directory under the system's temporary directory, removed when the test process
    /// exits, unless `WHALESIM_KEEP_TEMP=1` is set (to look at what a failing test left).
    public static func temporaryDirectory(_ name: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "whalesim-\(name)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        TemporaryDirectories.add(url)
        return url
    }
}
