import Foundation
import Testing
import WhalesimTesting

/// Issue 47: real sessions as load. A Python client no one here wrote (`requests` and
/// `websockets`, Tests/External/record_session.py) works through `whalesim record` in front of
/// `whalesim serve`; the session file holds its steps without its secrets; a HAR of the same
/// steps in Chromium's export format (Tests/External/recorded-session.har) imports to the same
/// session; `run --replay` plays it with 50 users against a fresh server, every checker valid
/// and the request mix the recorded one times 50, kind by kind; a planted server bug is caught
/// by the replay as by the seeded load. And what each bad input gets.
@Suite(.serialized) struct RecordReplayTests {
    let cli = RunCommandTests()
    static let python = ExternalProcess.python3()
    static let script = ExternalProcess.packageRoot.appendingPathComponent("Tests/External/record_session.py").path
    static let har = ExternalProcess.packageRoot.appendingPathComponent("Tests/External/recorded-session.har").path

    /// `whalesim record` as a child process, listening on a free port.
    struct Recorder {
        let process: Process
        let url: String
        let stderr: Pipe

        init(upstream: String, out: String) throws {
            process = Process()
            process.executableURL = RunCommandTests.root.appendingPathComponent(".build/debug/whalesim")
            process.arguments = ["record", "--listen", "127.0.0.1:0", "--upstream", upstream, "--out", out]
            let banner = Pipe()
            stderr = Pipe()
            process.standardOutput = banner
            process.standardError = stderr
            try process.run()
            var text = ""
            let deadline = Date().addingTimeInterval(30)
            while !text.contains("\n"), Date() < deadline {
                let d = banner.fileHandleForReading.availableData
                if d.isEmpty { Thread.sleep(forTimeInterval: 0.05) } else { text += String(decoding: d, as: UTF8.self) }
            }
            guard let m = text.firstMatch(of: /recording: (http:\/\/127\.0\.0\.1:\d+) ->/) else {
                process.terminate()
                throw ServeProcess.ServeFailed(printed: text)
            }
            url = String(m.1)
        }

        /// SIGTERM, then what it printed on stderr and its exit status.
        func stop() -> (status: Int32, stderr: String) {
            process.terminate()
            process.waitUntilExit()
            return (
                process.terminationStatus,
                String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            )
        }
    }

    /// Records the Python session through a recorder in front of a fresh `serve`; the file's path.
    func recordPythonSession(in dir: URL) async throws -> URL {
        let python = try #require(Self.python, "python3 is missing: \(ExternalProcess.pythonHint)")
        let probe = try await ExternalProcess.run(python, ["-c", "import requests, websockets"], timeout: .seconds(60))
        try #require(probe.status == 0, "requests or websockets is missing in \(python): \(ExternalProcess.pythonHint)")
        let server = try ServeProcess(database: ":memory:")
        defer { server.stop() }
        let file = dir.appendingPathComponent("team.session")
        let recorder = try Recorder(upstream: server.url, out: file.path)
        let client = try await ExternalProcess.run(
            python, [Self.script, "--base", recorder.url, "--email", "ann@acme.test", "--password", "whale-ann-1"],
            timeout: .seconds(120))
        let (status, printed) = recorder.stop()
        #expect(
            client.status == 0 && client.stdout.contains("ALL OK"), "\(client.stdout)\n\(client.stderr.suffix(2000))")
        #expect(status == 0, "\(printed)")
        #expect(printed.contains("SIGTERM: ") && printed.contains(" events in 1 session over "), "\(printed)")
        return file
    }

    /// The file's lines as JSON objects (header, events, end).
    static func lines(_ file: URL) throws -> [[String: Any]] {
        try String(contentsOf: file, encoding: .utf8).split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    /// What the client did, in order: requests and upgrades (method, path, kept headers, body)
    /// and frames it sent; what the server answered (ids, times) left out.
    static func clientSide(_ file: URL) throws -> [String] {
        try lines(file).dropFirst().dropLast().compactMap { e in
            let kind = e["kind"] as? String ?? ""
            func json(_ v: Any?) -> String {
                guard let v, JSONSerialization.isValidJSONObject(v) || v is String else { return "" }
                if let s = v as? String { return s }
                return String(
                    decoding: (try? JSONSerialization.data(withJSONObject: v, options: [.sortedKeys])) ?? Data(),
                    as: UTF8.self)
            }
            switch kind {
            case "http", "wsOpen":
                return [e["session"], kind, e["method"], e["path"], json(e["headers"]), json(e["request"])].map {
                    "\($0 ?? "")"
                }
                .joined(separator: " | ")
            case "wsSend": return "\(e["session"] ?? "") | wsSend | \(e["data"] ?? "")"
            default: return nil
            }
        }
    }

    @Test(.enabled(if: python != nil, "\(ExternalProcess.pythonHint)"))
    func aPythonSessionIsRecordedWithoutItsSecretsAndItsHARImportsTheSame() async throws {
        let dir = try cli.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try await recordPythonSession(in: dir)
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(mode == 0o600, "the session file is \(String(mode ?? 0, radix: 8)), not owner-only")
        let text = try String(contentsOf: file, encoding: .utf8)
        // No secret reaches the file: the password, any JWT, the refresh token.
        #expect(!text.contains("whale-ann-1"))
        #expect(text.firstMatch(of: /eyJ[A-Za-z0-9_-]{8,}\./) == nil, "a JWT reached the file")
        #expect(
            text.contains("{{password#1}}") && text.contains("{{accessToken#1}}") && text.contains("{{refreshToken#1}}")
        )
        let events = try Self.lines(file).dropFirst().dropLast()
        let kinds = events.map { $0["kind"] as? String ?? "" }
        #expect(Set(events.map { $0["session"] as? String ?? "" }) == ["s1"])
        #expect(kinds.filter { $0 == "http" }.count == 5, "login, board, move, task, note: \(kinds)")
        #expect(kinds.filter { $0 == "wsOpen" }.count == 1 && kinds.filter { $0 == "wsClose" }.count == 1)
        // join + 22 keystrokes + the selection, each frame the client sent, in order.
        #expect(kinds.filter { $0 == "wsSend" }.count == 24, "\(kinds)")
        let times = events.map { $0["t"] as? Int ?? -1 }
        #expect(times == times.sorted() && times.first! >= 0)
        // The HAR of the same steps (Chromium's export, real secrets in it) imports to the same session.
        let imported = dir.appendingPathComponent("har.session")
        let run = try cli.whalesim(["import-har", Self.har, "--out", imported.path])
        #expect(run.status == 0, "\(run.all)")
        #expect(run.stdout.contains("55 events in 1 session written to"), "\(run.stdout)")
        let importedText = try String(contentsOf: imported, encoding: .utf8)
        #expect(!importedText.contains("whale-ann-1") && importedText.firstMatch(of: /eyJ[A-Za-z0-9_-]{8,}\./) == nil)
        #expect(try Self.clientSide(imported) == Self.clientSide(file))
    }

    @Test(.enabled(if: python != nil, "\(ExternalProcess.pythonHint)"))
    func fiftyUsersReplayTheRecordedSessionCheckedAndCountedKindByKind() async throws {
        let dir = try cli.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try await recordPythonSession(in: dir)
        let fresh = try ServeProcess(database: ":memory:")
        defer { fresh.stop() }
        let reports = dir.appendingPathComponent("Reports")
        let run = try cli.whalesim([
            "run", "--replay", file.path, "--users", "50", "--server", fresh.url, "--report-dir", reports.path,
            "--quiet",
        ])
        #expect(run.status == 0, "\(run.all)")
        #expect(
            run.stdout.contains("replay: whalesim run --seed 1 --replay \(file.path) --users 50 --server"),
            "\(run.stdout)")
        let runDir = reports.appendingPathComponent("latest")
        let record = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: runDir.appendingPathComponent("run.json")))
                as? [String: Any])
        for v in record["verdicts"] as? [[String: Any]] ?? [] {
            #expect(v["verdict"] as? String == "valid", "\(v)")
        }
        let replay = try #require(record["replay"] as? [String: Any])
        #expect(replay["users"] as? Int == 50 && replay["sessions"] as? Int == 1)
        let kinds = try #require(replay["kinds"] as? [[String: Any]])
        let byKind = Dictionary(uniqueKeysWithValues: kinds.map { ($0["kind"] as? String ?? "", $0) })
        #expect(
            Set(byKind.keys) == [
                "login", "graphql Board", "graphql MoveAccount", "graphql SaveTask", "graphql Note", "ws open",
                "ws resourceConnection", "ws docChange", "ws cursorUpdate",
            ], "\(byKind.keys.sorted())")
        for (kind, k) in byKind {
            // Nothing here is a kind the replay leaves out: each exactly the recording's count times 50.
            #expect(k["notReplayed"] == nil, "\(kind)")
            let recorded = k["recorded"] as? Int ?? -1
            #expect(k["expected"] as? Int == recorded * 50 && k["replayed"] as? Int == recorded * 50, "\(kind): \(k)")
        }
        #expect(byKind["ws docChange"]?["recorded"] as? Int == 22)
        let summary =
            try JSONSerialization.jsonObject(with: Data(contentsOf: runDir.appendingPathComponent("summary.json")))
            as? [String: Any]
        #expect((summary?["replayMix"] as? [String: Any])?["users"] as? Int == 50)
        let report = try String(contentsOf: runDir.appendingPathComponent("report.html"), encoding: .utf8)
        #expect(report.contains("<h2>Replayed sessions</h2>") && report.contains("<code>graphql MoveAccount</code>"))
    }

    /// `serve --plant skip-broadcast` (every tenth op's broadcast never reaches one member) is
    /// caught by the replayed load as by the seeded one: exit 2, convergence invalid, a client
    /// found diverged from the server, in both.
    @Test(.enabled(if: python != nil, "\(ExternalProcess.pythonHint)"))
    func aPlantedServerBugIsCaughtByTheReplayAsByTheSeededLoad() async throws {
        let dir = try cli.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try await recordPythonSession(in: dir)
        let seeded = ReproduceCommandTests.liveScenario(
            "seeded-20", clients: "{count: 20, documents: 1, protocol: 2}",
            mix: "{typing-burst: 30, paste: 5, delete: 5}",
            faults: "", duration: "4s", text: "{alphabet: ascii, initial: \"\"}",
            checkers: "[convergence, intention, cursors, revisions, liveness]")
        let scenario = dir.appendingPathComponent("seeded.yml")
        try seeded.write(to: scenario, atomically: true, encoding: .utf8)
        for (label, arguments) in [
            ("seeded", ["run", scenario.path]), ("replayed", ["run", "--replay", file.path, "--users", "20"]),
        ] {
            let planted = try ServeProcess(database: ":memory:", arguments: ["--plant", "skip-broadcast"])
            defer { planted.stop() }
            let run = try cli.whalesim(
                arguments + [
                    "--server", planted.url, "--report-dir", dir.appendingPathComponent("R-\(label)").path, "--quiet",
                    "--no-reproduce",
                ])
            #expect(run.status == 2, "\(label): \(run.all)")
            #expect(run.stdout.contains("convergence  invalid"), "\(label): \(run.stdout)")
            #expect(run.stdout.contains("diverged from the server on"), "\(label): \(run.stdout)")
        }
    }

    /// The Salesforce side (`--salesforce-listen`, `--salesforce-upstream`) with curl in front of the
    /// fake Salesforce: an OAuth password grant and a SOQL query join the session that signed in
    /// last; the client secret, the password and the Salesforce session id are placeholders.
    @Test func salesforceTrafficJoinsTheSessionWithoutItsSecrets() async throws {
        let dir = try cli.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fake = Process()
        fake.executableURL = RunCommandTests.root.appendingPathComponent(".build/debug/whalesim")
        fake.arguments = ["fake-salesforce", "--port", "0", "--tls-port", "0", "--generate-accounts", "5"]
        let banner = Pipe()
        fake.standardOutput = banner
        try fake.run()
        defer {
            fake.terminate()
            fake.waitUntilExit()
        }
        var text = ""
        while !text.contains("https:") {
            let d = banner.fileHandleForReading.availableData
            if d.isEmpty { break }
            text += String(decoding: d, as: UTF8.self)
        }
        let salesforce = try #require(
            text.firstMatch(of: /http: (http:\/\/127\.0\.0\.1:\d+)/).map { String($0.1) }, "\(text)")
        let server = try ServeProcess(database: ":memory:")
        defer { server.stop() }
        let file = dir.appendingPathComponent("sf.session")
        let recorder = Process()
        recorder.executableURL = fake.executableURL
        recorder.arguments = [
            "record", "--listen", "127.0.0.1:0", "--upstream", server.url, "--salesforce-listen", "127.0.0.1:0",
            "--salesforce-upstream", salesforce, "--out", file.path,
        ]
        let out = Pipe()
        recorder.standardOutput = out
        recorder.standardError = Pipe()
        try recorder.run()
        var lines = ""
        while !lines.contains("writing ") {
            let d = out.fileHandleForReading.availableData
            if d.isEmpty { break }
            lines += String(decoding: d, as: UTF8.self)
        }
        let whaler = try #require(
            lines.firstMatch(of: /recording: (http:\/\/[0-9.:]+) ->/).map { String($0.1) }, "\(lines)")
        let sf = try #require(lines.firstMatch(of: /recording salesforce: (http:\/\/[0-9.:]+) ->/).map { String($0.1) })
        let curl = "/usr/bin/curl"
        _ = try await ExternalProcess.run(
            curl,
            [
                "-sS", "-X", "POST", whaler + "/api/user/login", "-H", "Content-Type: application/json",
                "-d", #"{"email":"ann@acme.test","password":"whale-ann-1"}"#,
            ], timeout: .seconds(30))
        let token = try await ExternalProcess.run(
            curl,
            [
                "-sS", "-X", "POST", sf + "/services/oauth2/token", "-d",
                "grant_type=password&client_id=whalesim-client&client_secret=whalesim-secret&username=admin%40whaler.test&password=whaler123TOKEN123",
            ],
            timeout: .seconds(30))
        let sid = try #require(
            (try? JSONSerialization.jsonObject(with: Data(token.stdout.utf8)) as? [String: Any])?["access_token"]
                as? String,
            "\(token.stdout)")
        let query = try await ExternalProcess.run(
            curl,
            [
                "-sS", sf + "/services/data/v59.0/query?q=SELECT+Id,Name+FROM+Account", "-H",
                "Authorization: Bearer \(sid)",
            ],
            timeout: .seconds(30))
        #expect(query.stdout.contains("\"totalSize\":5"), "\(query.stdout)")
        recorder.terminate()
        recorder.waitUntilExit()
        #expect(recorder.terminationStatus == 0)
        let recorded = try String(contentsOf: file, encoding: .utf8)
        for secret in [sid, "whaler123TOKEN123", "whalesim-secret", "whale-ann-1"] {
            #expect(!recorded.contains(secret), "\(secret) reached the file")
        }
        #expect(
            recorded.contains("client_secret={{clientSecret#1}}") && recorded.contains("Bearer {{salesforceSession#1}}")
        )
        let events = try Self.lines(file).dropFirst().dropLast()
        #expect(events.map { $0["target"] as? String ?? "" } == ["whaler", "salesforce", "salesforce"])
        #expect(Set(events.map { $0["session"] as? String ?? "" }) == ["s1"])
        // A session of a sign-in and Salesforce calls only has nothing a replay plays: refused before any load.
        let replay = try cli.whalesim(["run", "--replay", file.path, "--users", "1"])
        #expect(
            replay.status == 64 && replay.stderr.contains("no session in it does anything a replay can play"),
            "\(replay.all)")
    }

    /// A scenario's `workload: {replay: FILE, speed: X}` with its own load profile: the HAR's
    /// session (no Python needed) played by 6 users arriving over a 1 s ramp at 4x speed on the
    /// embedded server; every checker valid, each kind 6 times the recording's, and the run's
    /// own replay command names the scenario file.
    @Test func aScenarioFileReplaysWithItsOwnLoadProfileAndSpeed() throws {
        let dir = try cli.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let session = dir.appendingPathComponent("har.session")
        #expect(try cli.whalesim(["import-har", Self.har, "--out", session.path]).status == 0)
        let yaml = dir.appendingPathComponent("replayed.yml")
        try """
        name: replayed-har
        mode: live
        seed: 3
        clients: {count: 6, documents: 1, protocol: 2}
        workload: {replay: \(session.path), speed: 4}
        live:
          duration: 4s
          load: {profile: ramp, ramp-up: 1s}
          import: {pages: 0}
          quiescence: 5s
        checkers: [convergence, intention, cursors, revisions, liveness]
        """.write(to: yaml, atomically: true, encoding: .utf8)
        let reports = dir.appendingPathComponent("Reports")
        let run = try cli.whalesim(["run", yaml.path, "--report-dir", reports.path, "--quiet"])
        #expect(run.status == 0, "\(run.all)")
        #expect(run.stdout.contains("6 clients (ramp over 1000 ms)"), "\(run.stdout)")
        #expect(run.stdout.contains("replay: whalesim run \(yaml.path) --seed 3"), "\(run.stdout)")
        let record = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: reports.appendingPathComponent("latest/run.json")))
                as? [String: Any])
        let replay = try #require(record["replay"] as? [String: Any])
        #expect(replay["speed"] as? Double == 4 && replay["users"] as? Int == 6)
        for k in replay["kinds"] as? [[String: Any]] ?? [] {
            let recorded = k["recorded"] as? Int ?? -1
            #expect(k["replayed"] as? Int == recorded * 6, "\(k)")
        }
        let bad = dir.appendingPathComponent("bad.yml")
        try "name: b\nmode: live\nworkload: {replay: x.session, speed: 0}\n".write(
            to: bad, atomically: true, encoding: .utf8)
        let refused = try cli.whalesim(["run", bad.path])
        #expect(refused.status == 64 && refused.stderr.contains("workload.speed: must be above 0"), "\(refused.all)")
    }

    /// What each bad input gets: a clear message and exit 64, and no file half made.
    @Test func badInputsGetClearErrors() throws {
        let dir = try cli.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("s.session").path
        let cases: [([String], String)] = [
            (
                ["record", "--listen", "127.0.0.1:0", "--upstream", "ftp://x", "--out", out],
                "--upstream ftp://x: expected http://host:port"
            ),
            (
                ["record", "--listen", "127.0.0.1:0", "--upstream", "http://127.0.0.1:1/api", "--out", out],
                "a base URL without a path"
            ),
            (
                ["record", "--listen", "nope:port", "--upstream", "http://127.0.0.1:1", "--out", out],
                "--listen nope:port"
            ),
            (
                [
                    "record", "--listen", "127.0.0.1:0", "--upstream", "http://127.0.0.1:1", "--out",
                    "/proc/no/s.session",
                ], "--out /proc/no/s.session: cannot create the file"
            ),
            (
                [
                    "record", "--listen", "127.0.0.1:0", "--upstream", "http://127.0.0.1:1", "--salesforce-listen",
                    "127.0.0.1:0", "--out", out,
                ],
                "--salesforce-listen and --salesforce-upstream go together"
            ),
            (["import-har", dir.appendingPathComponent("none.har").path, "--out", out], "cannot read"),
            (["run", "--replay", dir.appendingPathComponent("none.session").path], "cannot read the file"),
            (["run", "--replay", Self.har, "--users", "5"], "not a session file header"),
            (["run", "live-demo", "--users", "5"], "--users goes with --replay"),
            (["run", "--replay", Self.har, "--users", "0"], "--users 0: must be 1...10000"),
            (["run", "--replay", Self.har, "--speed", "0"], "--speed 0.0: must be above 0"),
        ]
        for (arguments, message) in cases {
            let r = try cli.whalesim(arguments)
            #expect(r.status == 64, "\(arguments): \(r.all)")
            #expect(r.stderr.contains(message), "\(arguments): \(r.stderr)")
        }
        // A HAR that is not one.
        let notHAR = dir.appendingPathComponent("x.har")
        try #"{"entries": []}"#.write(to: notHAR, atomically: true, encoding: .utf8)
        let r = try cli.whalesim(["import-har", notHAR.path, "--out", out])
        #expect(r.status == 64 && r.stderr.contains("no log.entries: not a HAR file"), "\(r.all)")
        // A session file cut short: the replay names the byte where it breaks.
        let session = dir.appendingPathComponent("cut.session")
        let whole = try cli.whalesim(["import-har", Self.har, "--out", session.path])
        #expect(whole.status == 0)
        let data = try Data(contentsOf: session)
        try data.prefix(data.count - 10).write(to: session)
        let cut = try cli.whalesim(["run", "--replay", session.path])
        #expect(cut.status == 64, "\(cut.all)")
        #expect(cut.stderr.contains("at byte") && cut.stderr.contains("cut short"), "\(cut.stderr)")
        // A scenario's workload without its file.
        let yaml = dir.appendingPathComponent("w.yml")
        try "name: w\nmode: live\nworkload: {speed: 2}\n".write(to: yaml, atomically: true, encoding: .utf8)
        let w = try cli.whalesim(["run", yaml.path])
        #expect(w.status == 64 && w.stderr.contains("workload.replay: missing"), "\(w.all)")
    }
}
