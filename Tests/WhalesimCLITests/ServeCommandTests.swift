import Foundation
import Testing

/// `whalesim serve` refuses bad flags before it binds anything: one line on stderr naming the
/// problem, exit 64.
@Suite("whalesim serve (bad input)")
struct ServeCommandTests {
    /// A key file with these permissions (the key itself long enough unless given).
    static func keyFile(mode: Int, key: String = "a-signing-key-of-32-bytes-length!") -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("whalesim-key-\(mode)-\(key.count)")
            .path
        FileManager.default.createFile(
            atPath: path, contents: Data((key + "\n").utf8), attributes: [.posixPermissions: mode])
        try? FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        return path
    }

    @Test(arguments: [
        (["--port", "70000"], "--port must be between 0 and 65535"),
        (["--fixtures", "/nonexistent/seed.json"], "no such file"),
        (["--fault", "nope"], "unknown fault nope"),
        (["--fault", "client-tie-priority"], "client-side fault"),
        (["--bcrypt-cost", "2"], "--bcrypt-cost must be between 4 and 31"),
        (["--max-message-bytes", "10"], "at least 64"),
        (["--slow-client-queue=-1"], "--slow-client-queue -1: expected a number of frames from 0 to 1000000"),
        (
            ["--slow-client-queue", "2000000"],
            "--slow-client-queue 2000000: expected a number of frames from 0 to 1000000"
        ),
        (
            ["--backpressure-log", "/proc/no/such/dir/log.jsonl"],
            "--backpressure-log /proc/no/such/dir/log.jsonl: cannot write the file"
        ),
        (["--jwt-secret", "short"], "at least 16 bytes"),
        (["--jwt-secret-file", "/nonexistent/key"], "--jwt-secret-file /nonexistent/key: no such file"),
        (["--jwt-secret-file", ServeCommandTests.keyFile(mode: 0o644)], "readable by others (mode 644); chmod 600 it"),
        (["--jwt-secret-file", ServeCommandTests.keyFile(mode: 0o600, key: "short")], "at least 16 bytes"),
        (["--log-level", "loud"], "unknown --log-level"),
        (["--log-format", "xml", "--port", "0", "--database", ":memory:"], "text or json"),
        (["--database", "/proc/no/such/dir.sqlite", "--port", "0"], "cannot open database"),
    ])
    func badFlagExits64(_ arguments: [String], _ message: String) throws {
        let result = try WhalesimRun.run(["serve"] + arguments, stdin: Data())
        #expect(result.status == 64, "\(arguments): \(result.stderr)")
        #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
    }
}
