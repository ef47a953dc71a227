import Foundation
import Testing

/// `whalesim conform` as a subprocess of the built `.build/debug/whalesim`, against the reference
/// server it starts itself (a child `whalesim serve`, killed with SIGKILL by the durability cases):
/// the lines, the report files, exit codes 0 / 2 / 64, and the `--expect-fail` list.
@Suite(.serialized) struct ConformCommandTests {
    let runner = RunCommandTests()

    func scratch() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "whalesim-conform-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test func passingCasesAndASIGKILLedServerExitZeroWithJUnitAndReport() throws {
        let dir = try scratch()
        let run = try runner.whalesim([
            "conform", "--only", "ot.concurrent-insert-same-position,durability", "--out", dir.path,
        ])
        #expect(run.status == 0, "\(run.all)")
        #expect(run.stdout.contains("pass  ot.concurrent-insert-same-position"))
        #expect(run.stdout.contains("pass  durability.kill-between-ack-and-broadcast"))
        #expect(run.stdout.contains("conform: 3 cases, 3 pass, 0 fail, 0 not applicable"))
        let junit = try String(contentsOf: dir.appendingPathComponent("junit.xml"), encoding: .utf8)
        #expect(junit.components(separatedBy: "<testcase ").count - 1 == 3)
        let html = try String(contentsOf: dir.appendingPathComponent("report.html"), encoding: .utf8)
        #expect(html.contains("durability.acked-ops-survive-restart"))
    }

    @Test func aFaultFailsTheRunUnlessTheCaseIsExpectedToFail() throws {
        let dir = try scratch()
        let failing = try runner.whalesim([
            "conform", "--fault", "utf8-length-transform", "--only",
            "ot.non-ascii-astral,ot.concurrent-insert-same-position", "--out", dir.path,
        ])
        #expect(failing.status == 2, "\(failing.all)")
        #expect(failing.stdout.contains("FAIL  ot.non-ascii-astral"))
        #expect(failing.stdout.contains("likely cause: catalog fault utf8-length-transform"))
        #expect(failing.stdout.contains("pass  ot.concurrent-insert-same-position"))
        let junit = try String(contentsOf: dir.appendingPathComponent("junit.xml"), encoding: .utf8)
        #expect(junit.contains("<failure message="))

        let list = dir.appendingPathComponent("known.txt")
        try
            "# the original backend's transform\not.non-ascii-astral\not.concurrent-insert-same-position  # passes: must be called out\n"
            .write(to: list, atomically: true, encoding: .utf8)
        let expected = try runner.whalesim([
            "conform", "--fault", "utf8-length-transform", "--only",
            "ot.non-ascii-astral,ot.concurrent-insert-same-position",
            "--expect-fail", list.path, "--out", dir.path,
        ])
        #expect(expected.status == 0, "\(expected.all)")
        #expect(expected.stdout.contains("fail (expected)  ot.non-ascii-astral"))
        #expect(expected.stdout.contains("PASS  ot.concurrent-insert-same-position"))
        #expect(expected.stdout.contains("passes now: take it off the list"))
    }

    /// The edge cases (issue 48) through a real `whalesim serve` child: it passes them, and with
    /// all seven edge faults switched on (`serve --fault`) each fails naming its own. Through the
    /// child the suite signs tokens with the child's key: the expired-just-now case's valid token
    /// is accepted (when the key went to the child hex-encoded, it was refused).
    @Test func theEdgeCasesPassThroughServeAndEachEdgeFaultFailsItsCase() throws {
        let edges = [
            ("security.token-expired-just-now", "token-expiry-leeway-day"),
            ("security.refresh-token-reused", "refresh-token-reuse"),
            ("security.bad-revision-one-past-head", "revision-past-head-accepted"),
            ("security.size-at-limit-and-one-over", "size-limit-off-by-one"),
            ("security.rate-at-burst-and-just-over", "rate-limit-off-by-one"),
            ("security.note-id-one-character-off", "note-id-prefix-match"),
            ("model.pool-rejoin-within-one-update", "rejoin-loses-update"),
        ]
        let only = edges.map(\.0).joined(separator: ",")
        let clean = try runner.whalesim(["conform", "--only", only, "--out", try scratch().path])
        #expect(clean.status == 0, "\(clean.all)")
        #expect(clean.stdout.contains("conform: 7 cases, 7 pass, 0 fail, 0 not applicable"), "\(clean.stdout)")
        let faulty = try runner.whalesim(
            ["conform", "--only", only, "--out", try scratch().path] + edges.flatMap { ["--fault", $0.1] })
        #expect(faulty.status == 2, "\(faulty.all)")
        let lines = faulty.stdout.split(separator: "\n").map(String.init)
        for (id, fault) in edges {
            let line = lines.first { $0.hasPrefix("FAIL  \(id) ") }
            #expect(line?.contains("catalog fault \(fault)") == true, "\(id): \(line ?? "no FAIL line")")
        }
    }

    /// Against a server conform did not start: no way to restart it and no key unless told, so
    /// those cases say not applicable; with `--jwt-secret` the expired-token case runs.
    @Test func againstARunningServerWhatItCannotDoIsNotApplicable() throws {
        let secret = "conform-test-secret-0123456789abcdef"
        let server = try ServeProcess(database: ":memory:", arguments: ["--jwt-secret", secret])
        defer { server.stop() }
        let dir = try scratch()
        let only = "sessions.join-at-head,security.token-expired,durability.acked-ops-survive-restart"
        let plain = try runner.whalesim(["conform", "--server", server.url, "--only", only, "--out", dir.path])
        #expect(plain.status == 0, "\(plain.all)")
        #expect(plain.stdout.contains("pass  sessions.join-at-head"))
        #expect(plain.stdout.contains("n/a   security.token-expired: needs the server's JWT key (--jwt-secret)"))
        #expect(
            plain.stdout.contains(
                "n/a   durability.acked-ops-survive-restart: needs a way to kill and restart the server"))
        let keyed = try runner.whalesim([
            "conform", "--server", server.url, "--only", only, "--jwt-secret", secret, "--protocol", "2", "--out",
            dir.path,
        ])
        #expect(keyed.status == 0, "\(keyed.all)")
        #expect(keyed.stdout.contains("pass  security.token-expired"))
        let original = try runner.whalesim([
            "conform", "--server", server.url, "--only", only, "--protocol", "1", "--out", dir.path,
        ])
        #expect(
            original.status == 0 && original.stdout.contains("n/a   security.token-expired: protocol 2 only"),
            "\(original.all)")
    }

    /// `--restart-command` kills and restarts the team's server (here a `whalesim serve` on a
    /// SQLite file, started in the background by a shell): the durability cases run and pass.
    @Test func aRestartCommandRunsTheDurabilityCases() throws {
        let dir = try scratch()
        let binary = RunCommandTests.root.appendingPathComponent(".build/debug/whalesim").path
        let pidFile = dir.appendingPathComponent("pid").path
        func serve(port: String, log: String) -> String {
            "(nohup '\(binary)' serve --port \(port) --database '\(dir.path)/notes.sqlite' --bcrypt-cost 4 --log-level error "
                + "--fixtures '\(RunCommandTests.root.path)/Fixtures/whaler/seed.json' > '\(dir.path)/\(log)' 2>&1 < /dev/null & echo $! > '\(pidFile)')"
        }
        let start = Process()
        start.executableURL = URL(fileURLWithPath: "/bin/sh")
        start.arguments = ["-c", serve(port: "0", log: "first.log")]
        try start.run()
        // Reaped by hand: Foundation's waitUntilExit does not return for a shell that leaves a
        // child in the background (the same reason CommandRestarter polls waitpid).
        var status: Int32 = 0
        while waitpid(start.processIdentifier, &status, WNOHANG) == 0 { Thread.sleep(forTimeInterval: 0.01) }
        defer {
            if let pid = try? String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(
                in: .whitespacesAndNewlines), let n = Int32(pid)
            {
                kill(n, SIGTERM)
            }
        }
        var url: String?
        for _ in 0..<600 where url == nil {
            Thread.sleep(forTimeInterval: 0.05)
            let log = (try? String(contentsOfFile: dir.appendingPathComponent("first.log").path, encoding: .utf8)) ?? ""
            url = log.split(separator: "\n").first { $0.hasPrefix("http: ") }.map { String($0.dropFirst(6)) }
        }
        let base = try #require(url, "the server did not start")
        let port = try #require(URL(string: base)?.port)
        let restart = "kill -9 $(cat '\(pidFile)'); sleep 0.2; " + serve(port: "\(port)", log: "second.log")
        let run = try runner.whalesim([
            "conform", "--server", base, "--only", "durability", "--restart-command", restart, "--out", dir.path,
        ])
        #expect(run.status == 0, "\(run.all)")
        #expect(run.stdout.contains("pass  durability.kill-between-ack-and-broadcast"))
        #expect(run.stdout.contains("pass  durability.acked-ops-survive-restart"))
    }

    @Test func badUsageExits64WithTheReason() throws {
        let cases: [([String], String)] = [
            (["conform", "--protocol", "3"], "--protocol is 1 or 2"),
            (["conform", "--only", "no-such-case"], "no case id matches"),
            (["conform", "--fault", "client-tie-priority"], "client-side fault"),
            (
                ["conform", "--server", "http://127.0.0.1:1", "--fault", "utf8-length-transform"],
                "switch the embedded server"
            ),
            (["conform", "--server", "ftp://x"], "expected http://host:port"),
            (["conform", "--user", "a@b:c"], "give it three times"),
            (["conform", "--expect-fail", "/nonexistent/list.txt"], "cannot read it"),
            (["conform", "--token-leeway", "-1"], "--token-leeway must be between 0 and 3600 seconds"),
            (["conform", "--token-leeway", "abc"], "--token-leeway"),
            (["conform", "--max-messages-per-second", "0"], "--max-messages-per-second must be between 1 and 100000"),
        ]
        for (arguments, message) in cases {
            let run = try runner.whalesim(arguments)
            #expect(run.status == 64, "\(arguments): \(run.all)")
            #expect(run.stderr.contains(message), "\(arguments): \(run.stderr)")
        }
        let unknown = try scratch().appendingPathComponent("bad.txt")
        try "ot.no-such-case\n".write(to: unknown, atomically: true, encoding: .utf8)
        let run = try runner.whalesim(["conform", "--expect-fail", unknown.path])
        #expect(run.status == 64 && run.stderr.contains("names no such case: line 1: ot.no-such-case"), "\(run.all)")
    }

    @Test func listingsComeFromTheSuite() throws {
        let listing = try runner.whalesim(["conform", "--list", "--only", "security.token"])
        #expect(listing.status == 0)
        #expect(
            listing.stdout.split(separator: "\n").map { String($0.prefix { $0 != "\t" }) } == [
                "security.token-missing-or-forged", "security.token-expired", "security.token-other-organization",
                "security.token-expired-just-now",
            ])
        let markdown = try runner.whalesim(["conform", "--list-markdown"])
        let doc = try String(
            contentsOf: RunCommandTests.root.appendingPathComponent("docs/conformance.md"), encoding: .utf8)
        #expect(markdown.stdout == doc)
    }
}
