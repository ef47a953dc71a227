import Foundation
import Testing

/// `whalesim serve` refuses bad flags before it binds anything: one line on stderr naming the
/// problem, exit 64.
@Suite("whalesim serve (bad input)")
struct ServeCommandTests {
    @Test(arguments: [
        (["--port", "70000"], "--port must be between 0 and 65535"),
        (["--fixtures", "/nonexistent/seed.json"], "no such file"),
        (["--fault", "nope"], "unknown fault nope"),
        (["--fault", "client-tie-priority"], "client-side fault"),
        (["--bcrypt-cost", "2"], "--bcrypt-cost must be between 4 and 31"),
        (["--max-message-bytes", "10"], "at least 64"),
        (["--jwt-secret", "short"], "at least 16 bytes"),
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
