import Foundation
import Testing

/// `whalesim run` as a subprocess of the built `.build/debug/whalesim`: real sockets to the
/// embedded server (a child `whalesim serve`) and fake Salesforce, the checkers on the live
/// history, thresholds and exit codes. Each run is short (seconds of load).
@Suite(.serialized) struct RunCommandTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
        var all: String { stdout + stderr }
    }

    func whalesim(_ arguments: [String], environment: [String: String] = [:]) throws -> Run {
        try launch(Self.root.appendingPathComponent(".build/debug/whalesim").path, arguments, environment: environment)
    }

    /// Runs `executable` to its end in `directory` (the package root by default), with `environment` over this one's.
    func launch(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:],
        in directory: URL = RunCommandTests.root
    ) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.currentDirectoryURL = directory
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let o = out.fileHandleForReading.readDataToEndOfFile(), e = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(
            status: process.terminationStatus, stdout: String(decoding: o, as: UTF8.self),
            stderr: String(decoding: e, as: UTF8.self))
    }

    func scratch() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "whalesim-run-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// Writes a scenario file and runs it; returns the run and its run directory's `run.json`.
    func live(_ yaml: String, in dir: URL, extra: [String] = [], environment: [String: String] = [:]) throws -> (
        Run, [String: Any]?
    ) {
        let file = dir.appendingPathComponent("scenario.yml")
        try yaml.write(to: file, atomically: true, encoding: .utf8)
        let reports = dir.appendingPathComponent("Reports")
        let run = try whalesim(
            ["run", file.path, "--report-dir", reports.path, "--quiet"] + extra, environment: environment)
        let latest = reports.appendingPathComponent("latest/run.json")
        let record = (try? Data(contentsOf: latest)).flatMap {
            try? JSONSerialization.jsonObject(with: $0) as? [String: Any]
        }
        return (run, record)
    }

    static let header = """
        mode: live
        seed: 7
        text: {alphabet: ascii, initial: "Call notes:\\n"}
        """

    @Test func fiftyClientsAreValidOnEveryChecker() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (run, record) = try live(
            """
            name: live-fifty
            \(Self.header)
            clients: {count: 50, documents: 5, protocol: 2}
            model: {board: 10, accounts: 2}
            mix: {typing-burst: 40, paste: 6, delete: 12, select: 6, same-position-insert: 10, cursor-move: 8, jump: 4, idle: 6,
                  move-account: 6, track: 2, untrack: 2, assign-account: 2, move-contact: 4, create-task: 3, complete-task: 3, reassign-task: 2, delete-task: 2}
            live:
              duration: 12s
              load: {profile: ramp, ramp-up: 4s}
              think-time: {distribution: exponential, mean: 400, max: 3000}
              keystroke: {distribution: uniform, min: 40, max: 120}
              quiescence: 15s
            checkers: [convergence, intention, cursors, revisions, liveness, model]
            thresholds: [convergence == valid, intention == valid, cursors == valid, revisions == valid, liveness == valid, model == valid, "op_ack.count >= 50", "soql.count >= 1"]
            """, in: dir)
        #expect(run.status == 0, "\(run.all)")
        for checker in ["convergence", "intention", "cursors", "revisions", "liveness", "model"] {
            #expect(
                run.stdout.contains("\(checker.padding(toLength: 12, withPad: " ", startingAt: 0)) valid"),
                "\(checker): \(run.stdout)")
        }
        #expect(run.stdout.contains("verdict: pass"))
        #expect(run.stdout.contains("replay: whalesim run \(dir.path)/scenario.yml --seed 7"))
        let r = try #require(record, "no run.json: \(run.all)")
        #expect(r["mode"] as? String == "live")
        #expect(r["timeUnit"] as? String == "ms")
        let histograms = try RecordFiles.histograms(r)
        for name in ["op_ack", "op_remote_apply", "connect", "login", "graphql", "soql"] {
            #expect(histograms[name] != nil, "\(name) missing")
        }
        let series = try #require(r["series"] as? [String: Any])
        #expect((series["connected"] as? [Int])?.max() == 50)
        let salesforce = try #require(r["salesforce"] as? [String: Any])
        #expect((salesforce["requests"] as? Int ?? 0) > 50)
        let reportDir = dir.appendingPathComponent("Reports/latest")
        for file in ["report.html", "junit.xml", "summary.json", "history.whr"] {
            #expect(FileManager.default.fileExists(atPath: reportDir.appendingPathComponent(file).path), "\(file)")
        }
    }

    @Test func dropsAPartitionAndAServerKillStayValid() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (run, record) = try live(
            """
            name: live-faults
            \(Self.header)
            clients: {count: 24, documents: 3, protocol: 2}
            model: {board: 6, accounts: 2}
            mix: {typing-burst: 40, paste: 6, delete: 12, select: 6, same-position-insert: 8, idle: 6, reconnect: 3,
                  move-account: 6, track: 2, untrack: 2, move-contact: 4, create-task: 3, complete-task: 3, reassign-task: 2, delete-task: 2}
            nemeses:
              - {kind: disconnect, every: 800, duration: 300}
              - {kind: partition, at: [2000], duration: 1500}
              - {kind: server-restart, at: [5000], duration: 1000}
            live:
              duration: 10s
              load: {profile: constant}
              think-time: {distribution: exponential, mean: 300, max: 2000}
              keystroke: {distribution: uniform, min: 30, max: 90}
              import: {pages: 0}
              network-faults:
                - {kind: latency, at: [500], duration: 3s, ms: 40, jitter: 20, clients: 50}
                - {kind: drop, at: [4s], clients: 25}
                - {kind: half-open, at: [7s], duration: 1500, clients: 20}
              quiescence: 25s
            checkers: [convergence, intention, cursors, revisions, liveness, model]
            """, in: dir)
        #expect(run.status == 0, "\(run.all)")
        #expect(run.stdout.contains("model        valid"), "\(run.stdout)")
        let counts = try #require(record?["counts"] as? [String: Int])
        #expect((counts["serverRestarts"] ?? 0) == 1)
        #expect((counts["disconnects"] ?? 0) >= 24, "every client loses its socket when the server is killed")
        let windows = ((record?["series"] as? [String: Any])?["faultWindows"] as? [[String: Any]]) ?? []
        for kind in ["server-restart", "partition", "latency", "drop", "half-open", "disconnect"] {
            #expect(windows.contains { $0["kind"] as? String == kind }, "no \(kind) window: \(windows)")
        }
        let notes = (record?["notes"] as? [String]) ?? []
        let proxy = try #require(notes.first { $0.hasPrefix("proxy: ") }, "\(notes)")
        #expect(!proxy.contains(" 0 chunks held"), "the partition held nothing: \(proxy)")
        #expect(!proxy.contains(" 0 reset"), "the drop reset nothing: \(proxy)")
    }

    /// Whether this test process may run a child as another user: root, with util-linux's `setpriv`.
    static let canDropPrivileges = geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")

    /// A run by a user with no privileges: every socket whalesim opens (the note clients, the
    /// fault proxy, the embedded server's listener, the pages' HTTP) must open for anyone. Until
    /// 2026-11-27 the note clients asked for `TCP_NODELAY` at the socket level, which Linux reads as
    /// `SO_DEBUG` and refuses without `CAP_NET_ADMIN`: every run by a user other than root failed
    /// with "cannot open a websocket", and every test here, run as root, passed. As a user other than
    /// root the other tests here already show it, so this one runs only where it can drop root.
    @Test(.enabled(if: canDropPrivileges, "runs whalesim as nobody: needs root and /usr/bin/setpriv"))
    func aRunByAUserWithoutPrivilegesOpensEverySocket() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        // The user must reach the binary and write the run directory, wherever the checkout is.
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: dir.path)
        let binary = dir.appendingPathComponent("whalesim")
        try FileManager.default.copyItem(at: Self.root.appendingPathComponent(".build/debug/whalesim"), to: binary)
        let scenario = dir.appendingPathComponent("scenario.yml")
        try """
        name: live-unprivileged
        \(Self.header)
        clients: {count: 12, documents: 3, protocol: 2}
        model: {board: 6, accounts: 2}
        mix: {typing-burst: 40, delete: 12, idle: 6, reconnect: 3, move-account: 6, create-task: 3}
        nemeses:
          - {kind: disconnect, every: 800, duration: 300}
          - {kind: server-restart, at: [3000], duration: 1000}
        live:
          duration: 6s
          load: {profile: constant}
          think-time: {distribution: exponential, mean: 300, max: 2000}
          keystroke: {distribution: uniform, min: 30, max: 90}
          import: {pages: 1}
          network-faults:
            - {kind: drop, at: [2s], clients: 25}
          quiescence: 20s
        checkers: [convergence, intention, cursors, revisions, liveness, model]
        """.write(to: scenario, atomically: true, encoding: .utf8)
        let run = try launch(
            "/usr/bin/setpriv",
            [
                "--reuid=65534", "--regid=65534", "--clear-groups", binary.path,
                "run", scenario.path, "--report-dir", dir.appendingPathComponent("Reports").path, "--quiet",
            ],
            environment: ["HOME": dir.path, "TMPDIR": dir.path], in: dir)
        let all = run.all
        #expect(run.status == 0, "\(all)")
        #expect(!all.contains("cannot open"), "\(all)")
        #expect(all.contains("verdict: pass"), "\(all)")
        let record = try Data(contentsOf: dir.appendingPathComponent("Reports/latest/run.json"))
        let r = try #require(try JSONSerialization.jsonObject(with: record) as? [String: Any])
        let counts = try #require(r["counts"] as? [String: Int])
        #expect((counts["serverRestarts"] ?? 0) == 1)
        let notes = (r["notes"] as? [String]) ?? []
        #expect(notes.contains { $0.hasPrefix("proxy: ") }, "the fault proxy carried no socket: \(notes)")
    }

    /// `whalesim` under a shell's `ulimit -n`, the way a user's login shell starts it.
    func whalesimUnderLimit(soft: Int, hard: Int, _ arguments: [String]) throws -> Run {
        try launch(
            "/bin/sh",
            [
                "-c", "ulimit -Sn \(soft) && ulimit -Hn \(hard) && exec \"$0\" \"$@\"",
                Self.root.appendingPathComponent(".build/debug/whalesim").path,
            ] + arguments)
    }

    /// A soft limit on open files below what the run needs, under a hard limit that allows it, is
    /// raised by whalesim itself (as most machines start a shell at 1,024 with a far higher hard
    /// limit): 12 clients in 3 notes need about 286 descriptors (``OpenFiles``), more than 128.
    @Test func aLowSoftLimitOnOpenFilesIsRaised() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("scenario.yml")
        try """
        name: live-soft-limit
        \(Self.header)
        clients: {count: 12, documents: 3, protocol: 2}
        mix: {typing-burst: 40, delete: 12, idle: 6}
        live:
          duration: 3s
          load: {profile: constant}
          think-time: {distribution: exponential, mean: 300, max: 2000}
          keystroke: {distribution: uniform, min: 30, max: 90}
          quiescence: 15s
        checkers: [convergence, intention, revisions, liveness]
        """.write(to: file, atomically: true, encoding: .utf8)
        let run = try whalesimUnderLimit(
            soft: 128, hard: 4096,
            ["run", file.path, "--report-dir", dir.appendingPathComponent("Reports").path, "--quiet"])
        #expect(run.status == 0, "\(run.all)")
        #expect(run.stdout.contains("verdict: pass"), "\(run.all)")
    }

    /// A hard limit too low for the run: refused before anything starts, with the figure it needs
    /// and how to get it, not a run whose clients fail to redial (a false `invalid`) or a crash.
    @Test func aHardLimitOnOpenFilesTooLowIsRefusedUpFront() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try whalesimUnderLimit(soft: 200, hard: 200, ["run", "soak", "--report-dir", dir.path])
        #expect(run.status == 3, "\(run.all)")
        #expect(
            run.stderr.contains(
                "the run could not start: this run needs about 2456 open files (1000 clients in 100 notes"),
            "\(run.all)")
        #expect(run.stderr.contains("the hard limit is 200"), "\(run.all)")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty,
            "a refused run writes no run directory")
        let bench = try whalesimUnderLimit(
            soft: 200, hard: 200,
            ["bench", "run", "--memory-clients", "0", "--socket-memory", "0", "--ceiling-clients", "0"])
        #expect(bench.status == 64, "\(bench.stdout)\(bench.stderr)")
        #expect(bench.stderr.contains("open files"), "\(bench.stderr)")
    }

    @Test func aServerCatalogFaultIsCaughtWithExit2() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (run, _) = try live(
            """
            name: live-resend-twice
            \(Self.header)
            clients: {count: 12, documents: 2, protocol: 2}
            mix: {typing-burst: 30, paste: 10, reconnect: 20}
            faults: [server-applies-resend-twice]
            live:
              duration: 6s
              load: {profile: constant}
              think-time: {distribution: exponential, mean: 150, max: 800}
              keystroke: {distribution: uniform, min: 5, max: 20}
              import: {pages: 0}
              quiescence: 3s
            checkers: [convergence, intention, revisions, liveness]
            """, in: dir, extra: ["--no-reproduce"])
        #expect(run.status == 2, "\(run.all)")
        #expect(
            !run.stdout.contains("reproducing the first violation"),
            "--no-reproduce skips the reproducer (ReproduceCommandTests has it)")
        #expect(run.stdout.contains("intention    invalid"))
        #expect(run.stdout.contains("applied twice"))
        #expect(run.stdout.contains("verdict: correctness violated (exit 2)"))
    }

    /// A team runs twice against its own server: the second run's notes already hold the first
    /// run's text and history, and the same client names make the same op ids. Before op ids
    /// carried the run's tag the server acknowledged the second run's ops as resends of the
    /// first's without applying them (exit 2, "which no client sent"); the history now counts
    /// each note's revisions from where it was when the run began.
    @Test func aSecondRunAgainstTheSameServerIsJudgedFromWhereItsNotesWere() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try ServeProcess(database: dir.appendingPathComponent("kept.sqlite").path)
        defer { server.stop() }
        let url = server.url
        let yaml = """
            name: live-twice
            \(Self.header)
            clients: {count: 8, documents: 2, protocol: 2}
            mix: {typing-burst: 40, paste: 10, delete: 10, select: 5, reconnect: 3}
            live:
              duration: 4s
              load: {profile: constant}
              think-time: {distribution: exponential, mean: 150, max: 800}
              keystroke: {distribution: uniform, min: 5, max: 20}
              import: {pages: 0}
              quiescence: 10s
            checkers: [convergence, intention, cursors, revisions, liveness]
            """
        let (first, firstRecord) = try live(yaml, in: dir, extra: ["--server", url])
        #expect(first.status == 0, "first run: \(first.all)")
        let firstDocuments = try #require(firstRecord?["documents"] as? [[String: Any]])
        #expect(
            firstDocuments.allSatisfy { $0["baseRevision"] == nil }, "fresh notes have no baseline: \(firstDocuments)")
        let (second, secondRecord) = try live(yaml, in: dir, extra: ["--server", url])
        #expect(second.status == 0, "second run: \(second.all)")
        #expect(second.stdout.contains("intention    valid"), "\(second.stdout)")
        let documents = try #require(secondRecord?["documents"] as? [[String: Any]])
        #expect(documents.count == 2)
        for d in documents {
            #expect((d["baseRevision"] as? Int ?? 0) > 0, "the second run began where the first left the note: \(d)")
            #expect(!(d["initialText"] as? String ?? "").isEmpty, "the first run left text in the note: \(d)")
        }
        let history = try RecordFiles.history(dir.appendingPathComponent("Reports/latest"))
        #expect(history.contains("already had a history when the run began"))
    }

    /// A load runner's process keeps one glibc arena (issue 21: the soak's runner sat 4 to 5 MB
    /// lower and its restart peaks lower with one); `WHALESIM_MALLOC_ARENAS=0` leaves glibc's
    /// own, one per thread that allocates. Seen through glibc's own per-arena statistics, which
    /// the heap trimmer prints every 2 s with `WHALESIM_TRIM_LOG=2`.
    @Test func aLoadRunnerKeepsOneHeapArena() throws {
        let yaml = """
            name: live-arenas
            \(Self.header)
            clients: {count: 6, documents: 1, protocol: 2}
            mix: {typing-burst: 40, delete: 10}
            live:
              duration: 5s
              load: {profile: constant}
              think-time: {distribution: exponential, mean: 200, max: 1000}
              import: {pages: 0}
            checkers: [convergence]
            """
        for (arenas, expectOne) in [(nil, true), ("0", false)] as [(String?, Bool)] {
            let dir = try scratch()
            defer { try? FileManager.default.removeItem(at: dir) }
            var environment = ["WHALESIM_TRIM_LOG": "2"]
            if let arenas { environment["WHALESIM_MALLOC_ARENAS"] = arenas }
            let (run, _) = try live(yaml, in: dir, environment: environment)
            #expect(run.status == 0, "\(run.all)")
            #expect(run.stderr.contains("Arena 0:"), "no heap statistics printed: \(run.stderr.prefix(500))")
            #expect(
                run.stderr.contains("Arena 1:") == !expectOne,
                "WHALESIM_MALLOC_ARENAS=\(arenas ?? "unset"): \(run.stderr.prefix(800))")
        }
    }

    /// A cap that is not a whole number is named on standard error, and the run goes on with one arena.
    @Test func aBadArenaCapIsNamed() throws {
        let run = try whalesim(["run", "nosuch-scenario"], environment: ["WHALESIM_MALLOC_ARENAS": "many"])
        #expect(run.stderr.contains("WHALESIM_MALLOC_ARENAS=many: expected a whole number"), "\(run.stderr)")
        #expect(run.status == 64)
    }

    @Test func aThresholdSetToFailExits1() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (run, record) = try live(
            """
            name: live-threshold
            \(Self.header)
            clients: {count: 6, documents: 1, protocol: 2}
            mix: {typing-burst: 40, delete: 10}
            live:
              duration: 4s
              load: {profile: constant}
              think-time: {distribution: exponential, mean: 200, max: 1000}
              import: {pages: 0}
              # A breach is the point here, however busy the machine running the tests is.
              foreign-cpu-bound: off
            checkers: [convergence, intention]
            thresholds: [convergence == valid, "op_ack.p99 < 1us", "errors.rate < 50%"]
            """, in: dir)
        #expect(run.status == 1, "\(run.all)")
        #expect(run.stdout.contains("threshold op_ack.p99 < 1us: BREACHED"))
        #expect(run.stdout.contains("threshold errors.rate < 50%: met"))
        let metric = (record?["metricThresholds"] as? [[String: Any]])?.first {
            $0["threshold"] as? String == "op_ack.p99 < 1us"
        }
        #expect(metric?["met"] as? Bool == false)
    }

    @Test func abortOnFailStopsTheLoadOnceAThresholdIsLost() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (run, record) = try live(
            """
            name: live-abort
            \(Self.header)
            clients: {count: 4, documents: 1, protocol: 2}
            mix: {typing-burst: 40}
            live:
              duration: 60s
              load: {profile: constant}
              think-time: {distribution: exponential, mean: 100, max: 500}
              import: {pages: 0}
              abort-on-fail: true
              foreign-cpu-bound: off
            checkers: [convergence]
            thresholds: ["op_ack.max < 1us"]
            """, in: dir)
        #expect(run.status == 1, "\(run.all)")
        #expect(run.stdout.contains("aborted early: op_ack.max < 1us"))
        #expect((record?["aborted"] as? String)?.hasPrefix("op_ack.max < 1us") == true)
        #expect((record?["wallSeconds"] as? Double ?? 99) < 40, "the load stopped early")
        #expect(run.stdout.contains("convergence  valid"), "an aborted run is still checked")
    }

    @Test func badScenariosAndFlagsExit64WithEveryProblem() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (run, _) = try live(
            """
            name: live-bad
            mode: live
            clients: {count: 4}
            live:
              duration: soon
              load: {profile: ramp}
              server: ftp://example.com
              network-faults:
                - {kind: latency, at: [1s]}
              colour: blue
            thresholds: ["op_ack.p99 < 50", "nonsense.p99 < 5ms", "errors.rate < 1"]
            """, in: dir)
        #expect(run.status == 64, "\(run.all)")
        for expected in [
            "live.duration: expected a duration", "live.load.ramp-up: missing",
            "live.server: expected embedded or an http(s) URL",
            "live.network-faults[0].duration: missing", "live.network-faults[0]: a latency fault needs ms or jitter",
            "live.colour: unknown key", "a latency needs a unit", "unknown metric \"nonsense.p99\"",
            "a rate is a percentage",
        ] {
            #expect(run.stderr.contains(expected), "missing \(expected): \(run.stderr)")
        }
        let shard = try whalesim(["run", "live-demo", "--shard", "4/4"])
        #expect(shard.status == 64)
        #expect(shard.stderr.contains("--shard 4/4: expected i/N with 0 <= i < N"))
        let clients = try whalesim(["run", "live-demo", "--clients", "0", "--duration", "forever"])
        #expect(clients.status == 64)
        #expect(clients.stderr.contains("--clients 0: must be 1...10000"))
        #expect(clients.stderr.contains("--duration forever: expected e.g. 30s"))
        // The runner's event loops are sized before the command line is parsed; a bad count is
        // still refused by the command, with the range.
        for bad in ["0", "257"] {
            let threads = try whalesim(["run", "live-demo", "--runner-threads", bad])
            #expect(threads.status == 64, "\(threads.all)")
            #expect(threads.stderr.contains("--runner-threads \(bad): must be 1...256"), "\(threads.stderr)")
        }
        let words = try whalesim(["run", "live-demo", "--runner-threads", "many"])
        #expect(words.status == 64)
        #expect(words.stderr.contains("many"), "\(words.stderr)")
        let bench = try whalesim(["bench", "run", "--runner-threads", "0"])
        #expect(bench.status == 64, "\(bench.all)")
        #expect(bench.stderr.contains("--runner-threads 0: must be 1...256"))
    }
}
