import Foundation
import WhaleReports

/// Paths, temporary directories and subprocesses for the report tests.
enum Support {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// A recorded run directory under `Fixtures/runs/` (run.json, history.jsonl, ...).
    static func run(_ name: String) throws -> RunDirectory {
        try RunDirectory.load(fixtures.appendingPathComponent("runs/\(name)").path)
    }

    static func temporaryDirectory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("whalesim-reports-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// Copies a fixture run into a fresh temporary directory (tests write rendered files there).
    static func copyOfRun(_ name: String) throws -> URL {
        let dir = try temporaryDirectory().appendingPathComponent(name)
        try FileManager.default.copyItem(at: fixtures.appendingPathComponent("runs/\(name)"), to: dir)
        return dir
    }

    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
        var timedOut: Bool
    }

    /// The full path of a program on PATH, or nil.
    static func which(_ program: String) -> String? {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let path = "\(dir)/\(program)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }

    /// Runs a program, killing it after `timeout` seconds (a hung browser must not hang the suite).
    static func execute(_ executable: String, _ arguments: [String], timeout: TimeInterval) throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let outFile = try temporaryDirectory().appendingPathComponent("out"),
            errFile = outFile.deletingLastPathComponent().appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: outFile.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errFile.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: outFile)
        process.standardError = try FileHandle(forWritingTo: errFile)
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        var timedOut = false
        while process.isRunning {
            if Date() > deadline {
                timedOut = true
                process.terminate()
                Thread.sleep(forTimeInterval: 0.5)
                if process.isRunning { kill(process.processIdentifier, SIGKILL) }
                break
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        process.waitUntilExit()
        let out = (try? String(contentsOf: outFile, encoding: .utf8)) ?? ""
        let err = (try? String(contentsOf: errFile, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(at: outFile.deletingLastPathComponent())
        return Output(status: process.terminationStatus, stdout: out, stderr: err, timedOut: timedOut)
    }
}
