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
final class ChildServer: @unchecked Sendable {
    let process = Process()
    let baseURL: String
    var socketURL: String { baseURL.replacingOccurrences(of: "http://", with: "ws://") + "/socket" }
    var pid: Int32 { process.processIdentifier }

    /// Starts `whalesim ARGUMENTS` (optionally under `taskset -c CPUS`) and waits for its URL.
    init(_ arguments: [String], cpus: String? = nil, timeout: Duration = .seconds(60)) throws {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        if let cpus {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/taskset")
            process.arguments = ["-c", cpus, executable] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        }
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.standardError
        try process.run()
        let handle = out.fileHandleForReading
        var buffer = ""
        let deadline = ContinuousClock.now + timeout
        while !buffer.contains("\n") || !buffer.contains("http: ") {
            guard ContinuousClock.now < deadline, process.isRunning else {
                process.terminate()
                throw BadInput("the server child (\(arguments.joined(separator: " "))) did not start: \(buffer)")
            }
            let data = handle.availableData
            if data.isEmpty { Thread.sleep(forTimeInterval: 0.01); continue }
            buffer += String(decoding: data, as: UTF8.self)
        }
        let line = buffer.split(separator: "\n").first { $0.hasPrefix("http: ") } ?? ""
        baseURL = String(line.dropFirst("http: ".count))
    }

    /// Resident memory of the child, in bytes (VmRSS).
    var residentBytes: Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }.map { $0 * 1024 }
        }
        return nil
    }

    /// SIGTERM, then waits for the child.
    func stop() {
        guard process.isRunning else { return }
        kill(pid, SIGTERM)
        process.waitUntilExit()
    }
}

/// A JSON POST with the standard library's HTTP client (the bench's set-up calls only).
func postJSON(_ url: String, _ body: [String: Any], token: String? = nil) async throws -> [String: Any] {
    var request = URLRequest(url: URL(string: url)!)
    request.httpMethod = "POST"
    request.httpBody = try JSONSerialization.data(withJSONObject: body)
    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    if let token { request.setValue(token, forHTTPHeaderField: "Authorization") }
    let data: Data = try await withCheckedThrowingContinuation { continuation in
        URLSession.shared.dataTask(with: request) { data, _, error in
            if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: data ?? Data()) }
        }.resume()
    }
    guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
        throw BadInput("\(url) answered with something that is not a JSON object")
    }
    return object
}
