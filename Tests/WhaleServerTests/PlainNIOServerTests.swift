import Foundation
import Testing
import WhaleCrypto
import WhalesimTesting

/// The reference server's HTTP and websocket edges on plain SwiftNIO
/// (docs/decisions/0058-reference-server-on-plain-nio.md): what each wrong request gets, the
/// metrics page, bcrypt's format, and a websocket's frames as Python's `websockets` sends them.
@Suite(.serialized) struct PlainNIOServerTests {
    @Test func eachWrongRequestGetsItsStatusAndAMessage() async throws {
        let harness = try await ServerHarness.start()
        defer { Task { await harness.stop() } }
        func curl(_ arguments: [String]) async throws -> (status: String, body: String) {
            let output = try await ExternalProcess.run(
                "/usr/bin/curl", ["-sS", "-o", "-", "-w", "\n%{http_code}"] + arguments, timeout: .seconds(30))
            let lines = output.stdout.split(separator: "\n", omittingEmptySubsequences: false)
            return (String(lines.last ?? ""), lines.dropLast().joined(separator: "\n"))
        }
        // An unknown path: 404, naming it.
        let unknown = try await curl([harness.base + "/nowhere"])
        #expect(unknown.status == "404" && unknown.body.contains("no route /nowhere"), "\(unknown)")
        // A known path, another method: 405.
        let method = try await curl(["-X", "DELETE", harness.base + "/health"])
        #expect(method.status == "405" && method.body.contains("DELETE is not served at /health"), "\(method)")
        // /socket without an upgrade: 426, saying what to send.
        let plain = try await curl([harness.base + "/socket"])
        #expect(plain.status == "426" && plain.body.contains("Upgrade: websocket"), "\(plain)")
        // A GraphQL body over its 1 MB: 400 with a GraphQL error; over the server's 4 MB read limit: 413.
        let big = try ExternalProcess.temporaryDirectory("body").appendingPathComponent("big.json")
        try Data(repeating: 0x20, count: 2 << 20).write(to: big)
        let login = try await harness.login(ServerHarness.ada)
        let overRoute = try await curl([
            "-X", "POST", "-H", "Authorization: \(login.token)", "--data-binary", "@\(big.path)",
            harness.base + "/query",
        ])
        #expect(overRoute.status == "400" && overRoute.body.contains("body over 1 MB"), "\(overRoute.status)")
        try Data(repeating: 0x20, count: 5 << 20).write(to: big)
        let overServer = try await curl(["-X", "POST", "--data-binary", "@\(big.path)", harness.base + "/query"])
        #expect(overServer.status == "413", "\(overServer.status)")
        // Not HTTP at all: 400, then the server hangs up; and it answers the next client.
        let python = try #require(ExternalProcess.python3(), "python3 is missing: \(ExternalProcess.pythonHint)")
        let script = ExternalProcess.packageRoot.appendingPathComponent("Tests/External/not_http_check.py").path
        let garbage = try await ExternalProcess.run(python, [script, "\(harness.server.port)"], timeout: .seconds(30))
        #expect(garbage.stdout.contains("closed"), "the server kept the connection open: \(garbage.stderr)")
        #expect(garbage.stdout.hasPrefix("HTTP/1.1 400"), "\(garbage.stdout)")
        #expect(try await curl([harness.base + "/health"]).status == "200")
    }

    @Test func metricsPageIsPrometheusTextWithCumulativeBuckets() async throws {
        let harness = try await ServerHarness.start()
        defer { Task { await harness.stop() } }
        _ = try? await harness.login((email: ServerHarness.ada.email, password: "wrong"))
        let (status, text) = try await harness.get("/metrics")
        #expect(status == 200)
        for line in [
            "# TYPE whalesim_connections gauge", "whalesim_connections 0", "# TYPE whalesim_errors_total counter",
            #"whalesim_errors_total{code="4001"} 1"#, #"whalesim_errors_total{code="tooLarge"} 0"#,
            "# TYPE whalesim_ack_latency_seconds histogram", #"whalesim_ack_latency_seconds_bucket{le="+Inf"} 0"#,
            "whalesim_ack_latency_seconds_count 0",
        ] {
            #expect(text.split(separator: "\n").contains(Substring(line)), "\(line) missing from:\n\(text)")
        }
        // Prometheus's own checker, where the test setup installed it.
        if let promtool = ExternalProcess.which("promtool") {
            let file = try ExternalProcess.temporaryDirectory("metrics").appendingPathComponent("server.prom")
            try Data(text.utf8).write(to: file)
            let check = try await ExternalProcess.run(
                "/bin/sh", ["-c", "\(promtool) check metrics < \(file.path)"], timeout: .seconds(30))
            #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        }
    }

    @Test func bcryptIsTheOpenBSDFormatThatEarlierDatabasesHold() {
        // Openwall's crypt_blowfish test vector: what any bcrypt library computes for "U*U" at this salt.
        #expect(Bcrypt.verify("U*U", hash: "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW"))
        #expect(Bcrypt.verify("U*U", hash: "$2b$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW"))
        #expect(!Bcrypt.verify("U*V", hash: "$2b$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW"))
        let hash = Bcrypt.hash("whale-ann-1", cost: 4)
        #expect(hash.hasPrefix("$2b$04$") && hash.count == 60, "\(hash)")
        #expect(Bcrypt.verify("whale-ann-1", hash: hash))
        #expect(Bcrypt.hash("whale-ann-1", cost: 4) != hash, "a fresh salt each time")
        // Not a bcrypt hash, or a broken one: never a match, never a crash.
        for bad in ["", "hash:whale-ann-1", "$2b$04$short", "$1$abc$def", "*0"] {
            #expect(!Bcrypt.verify("whale-ann-1", hash: bad), "\(bad)")
        }
    }

    @Test func pythonWebsocketsPingFragmentsAndCloseAreAnswered() async throws {
        let python = try #require(ExternalProcess.python3(), "python3 is missing: \(ExternalProcess.pythonHint)")
        let probe = try await ExternalProcess.run(python, ["-c", "import websockets"], timeout: .seconds(60))
        try #require(probe.status == 0, "the websockets package is missing in \(python): \(ExternalProcess.pythonHint)")
        let harness = try await ServerHarness.start()
        defer { Task { await harness.stop() } }
        let script = ExternalProcess.packageRoot.appendingPathComponent("Tests/External/socket_frames_check.py").path
        let output = try await ExternalProcess.run(
            python,
            [
                script, "--base", harness.base, "--email", ServerHarness.ada.email, "--password",
                ServerHarness.ada.password,
            ],
            timeout: .seconds(60))
        let transcript = "exit \(output.status)\n\(output.stdout)\n\(output.stderr.suffix(3000))"
        #expect(output.status == 0 && output.stdout.contains("ALL OK"), "\(transcript)")
    }
}
