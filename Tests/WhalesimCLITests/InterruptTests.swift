import Foundation
import Testing
import WhalesimTesting
#if canImport(Glibc)
    import Glibc
#endif

/// Signals to live `whalesim` processes (docs/decisions/0021-clean-stops-setup-split-portable-binary.md):
/// a first SIGINT or SIGTERM mid-load ends the run cleanly (record and report marked interrupted, exit 3, the
/// `serve` child stopped, the temporary directory gone); a second one exits at once (130 / 143)
/// and still leaves no child and no directory; a parent killed with SIGKILL leaves no server
/// behind; the child's signing key is not on its command line. Each run is seconds long.
@Suite(.serialized) struct InterruptTests {
    static let scenario = """
        name: live-interrupt
        mode: live
        seed: 7
        text: {alphabet: ascii, initial: "Call notes:\\n"}
        clients: {count: 6, documents: 2, protocol: 2}
        mix: {typing-burst: 60, delete: 15, select: 10, same-position-insert: 5, idle: 10}
        live:
          duration: 60s
          load: {profile: constant}
          think-time: {distribution: exponential, mean: 300, max: 2000}
          keystroke: {distribution: uniform, min: 30, max: 90}
          import: {pages: 0}
          quiescence: 20s
        checkers: [convergence, intention, cursors, revisions, liveness]
        """

    /// A `whalesim` started in the background, its output going to files.
    final class Background {
        let process = Process()
        let out: URL
        let err: URL

        init(_ arguments: [String], in dir: URL, binary: URL = ExternalProcess.whalesimBinary, stdin: Pipe? = nil)
            throws
        {
            out = dir.appendingPathComponent("stdout-\(UUID().uuidString.prefix(6)).txt")
            err = dir.appendingPathComponent("stderr-\(UUID().uuidString.prefix(6)).txt")
            _ = FileManager.default.createFile(atPath: out.path, contents: nil)
            _ = FileManager.default.createFile(atPath: err.path, contents: nil)
            process.executableURL = binary
            process.arguments = arguments
            process.currentDirectoryURL = dir
            process.standardOutput = try FileHandle(forWritingTo: out)
            process.standardError = try FileHandle(forWritingTo: err)
            if let stdin { process.standardInput = stdin }
            try process.run()
        }

        var pid: Int32 { process.processIdentifier }
        var stdout: String { (try? String(contentsOf: out, encoding: .utf8)) ?? "" }
        var stderr: String { (try? String(contentsOf: err, encoding: .utf8)) ?? "" }
        var all: String { "stdout:\n\(stdout)\nstderr:\n\(stderr.suffix(4000))" }

        /// Waits until stdout contains `text` (true), the process exits or `seconds` pass (false).
        func waitFor(_ text: String, seconds: Double) -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if stdout.contains(text) { return true }
                if !process.isRunning { return stdout.contains(text) }
                Thread.sleep(forTimeInterval: 0.05)
            }
            return false
        }

        /// Waits for the exit; kills it (and returns nil) past `seconds`.
        func waitExit(seconds: Double) -> Int32? {
            let deadline = Date().addingTimeInterval(seconds)
            while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
            if process.isRunning {
                kill(pid, SIGKILL)
                process.waitUntilExit()
                return nil
            }
            return process.terminationStatus
        }
    }

    /// The direct children of `pid`, from /proc (field 4 of /proc/N/stat is the parent).
    static func children(of pid: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { parent(of: $0) == pid }.sorted()
    }

    static func parent(of pid: Int32) -> Int32? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 1 ? Int32(fields[1]) : nil
    }

    /// Whether `pid` is still a live (not zombie) process running `whalesim`.
    static func isLiveWhalesim(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        let state = stat[stat.index(after: close)...].split(separator: " ").first ?? ""
        let command =
            (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))).map {
                String(decoding: $0, as: UTF8.self)
            } ?? ""
        return state != "Z" && command.contains("whalesim")
    }

    /// `/tmp/whalesim-run-<pid>-*` directories of `pid`.
    static func temporaryDirectories(of pid: Int32) -> [String] {
        let tmp = FileManager.default.temporaryDirectory.path
        return ((try? FileManager.default.contentsOfDirectory(atPath: tmp)) ?? []).filter {
            $0.hasPrefix("whalesim-run-\(pid)-")
        }.sorted()
    }

    /// The run started, its load underway, and its `serve` child.
    func startRun(in dir: URL) throws -> (Background, child: Int32) {
        let file = dir.appendingPathComponent("scenario.yml")
        try Self.scenario.write(to: file, atomically: true, encoding: .utf8)
        let run = try Background(
            ["run", file.path, "--report-dir", dir.appendingPathComponent("Reports").path, "--quiet"], in: dir)
        #expect(run.waitFor("whalesim run live-interrupt:", seconds: 90), "the load never started: \(run.all)")
        Thread.sleep(forTimeInterval: 2)  // mid-load
        let children = Self.children(of: run.pid).filter(Self.isLiveWhalesim)
        #expect(children.count == 1, "expected one serve child: \(children)")
        return (run, children.first ?? -1)
    }

    func checkClean(_ run: Background, child: Int32) {
        // The child is gone (stopped and reaped by the run, or at worst by init, never left running).
        let deadline = Date().addingTimeInterval(5)
        while Self.isLiveWhalesim(child), Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        #expect(!Self.isLiveWhalesim(child), "the serve child \(child) outlived the run")
        #expect(
            Self.temporaryDirectories(of: run.pid).isEmpty, "left behind: \(Self.temporaryDirectories(of: run.pid))")
    }

    func interruptedOnce(_ signal: Int32, name: String) throws {
        let dir = try ExternalProcess.temporaryDirectory("interrupt")
        let (run, child) = try startRun(in: dir)
        #expect(!Self.temporaryDirectories(of: run.pid).isEmpty, "the run has a temporary directory while it runs")
        kill(run.pid, signal)
        let status = run.waitExit(seconds: 60)
        #expect(status == 3, "exit \(String(describing: status)): \(run.all)")
        #expect(run.stdout.contains("interrupted by \(name)"), "\(run.all)")
        checkClean(run, child: child)
        let latest = dir.appendingPathComponent("Reports/latest")
        let record = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: latest.appendingPathComponent("run.json")))
                as? [String: Any], "\(run.all)")
        #expect(record["interrupted"] as? String == name)
        let notes = (record["notes"] as? [String]) ?? []
        #expect(notes.contains { $0.hasPrefix("interrupted by \(name)") }, "\(notes)")
        let html = try String(contentsOf: latest.appendingPathComponent("report.html"), encoding: .utf8)
        #expect(html.contains("<strong>interrupted</strong> by \(name)"))
        let summary = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: latest.appendingPathComponent("summary.json")))
                as? [String: Any])
        #expect(summary["interrupted"] as? String == name)
        // What could not finish says unknown, with why; nothing says valid without having been judged.
        let verdicts = (record["verdicts"] as? [[String: Any]]) ?? []
        #expect(verdicts.count == 5)
        for v in verdicts where v["verdict"] as? String == "unknown" {
            let evidence = (v["evidence"] as? [String]) ?? []
            #expect(evidence.contains { $0.contains("interrupted by \(name)") }, "\(v)")
        }
        // The cursor probe never ran: cursors cannot be judged.
        let cursors = verdicts.first { $0["checker"] as? String == "cursors" }
        #expect(cursors?["verdict"] as? String == "unknown", "\(verdicts)")
        #expect(record["verdict"] as? String != "valid")
    }

    @Test(.timeLimit(.minutes(3))) func sigintMidLoadWritesAnInterruptedRecordAndLeavesNothing() throws {
        try interruptedOnce(SIGINT, name: "SIGINT")
    }

    @Test(.timeLimit(.minutes(3))) func sigtermMidLoadWritesAnInterruptedRecordAndLeavesNothing() throws {
        try interruptedOnce(SIGTERM, name: "SIGTERM")
    }

    @Test(.timeLimit(.minutes(3))) func aSecondSignalExitsAtOnceAndStillLeavesNothing() throws {
        let dir = try ExternalProcess.temporaryDirectory("interrupt-twice")
        let (run, child) = try startRun(in: dir)
        kill(run.pid, SIGTERM)
        Thread.sleep(forTimeInterval: 0.2)
        let sent = Date()
        kill(run.pid, SIGTERM)
        let status = run.waitExit(seconds: 10)
        #expect(status == 143, "exit \(String(describing: status)): \(run.all)")
        #expect(Date().timeIntervalSince(sent) < 5, "the second signal took \(Date().timeIntervalSince(sent)) s")
        #expect(run.stderr.contains("SIGTERM again: stopping now"), "\(run.all)")
        checkClean(run, child: child)
    }

    /// The signing key travels in the child's environment (owner-only), not its arguments.
    @Test(.timeLimit(.minutes(3))) func theChildsSigningKeyIsNotOnItsCommandLine() throws {
        let dir = try ExternalProcess.temporaryDirectory("secret")
        let (run, child) = try startRun(in: dir)
        defer {
            kill(run.pid, SIGINT)
            _ = run.waitExit(seconds: 60)
        }
        let cmdline = String(
            decoding: try Data(contentsOf: URL(fileURLWithPath: "/proc/\(child)/cmdline")), as: UTF8.self)
        #expect(cmdline.contains("serve") && cmdline.contains("--stop-on-stdin-eof"), "\(cmdline)")
        #expect(!cmdline.contains("jwt-secret"), "\(cmdline)")
        let environ = String(
            decoding: try Data(contentsOf: URL(fileURLWithPath: "/proc/\(child)/environ")), as: UTF8.self
        ).split(separator: "\0")
        let key = try #require(
            environ.first { $0.hasPrefix("WHALESIM_JWT_SECRET=") }, "no key in the child's environment"
        ).dropFirst("WHALESIM_JWT_SECRET=".count)
        #expect(key.count == 64 && key.allSatisfy(\.isHexDigit), "\(key.count) characters")
        #expect(!cmdline.contains(key))
        let mode = try FileManager.default.attributesOfItem(atPath: "/proc/\(child)/environ")[.posixPermissions] as? Int
        #expect(mode == 0o400, "environ is readable by its owner only")
    }

    /// A parent killed with SIGKILL cannot stop its child: the child sees its stdin end and stops.
    @Test(.timeLimit(.minutes(3))) func aKilledRunLeavesNoServerBehind() throws {
        let dir = try ExternalProcess.temporaryDirectory("killed")
        let (run, child) = try startRun(in: dir)
        kill(run.pid, SIGKILL)
        run.process.waitUntilExit()
        let deadline = Date().addingTimeInterval(15)
        while Self.isLiveWhalesim(child), Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        #expect(!Self.isLiveWhalesim(child), "the serve child \(child) outlived its killed parent")
        // Its directory stays (nobody could remove it); the next run removes it (RunCleanup).
        for name in Self.temporaryDirectories(of: run.pid) {
            try? FileManager.default.removeItem(
                atPath: FileManager.default.temporaryDirectory.appendingPathComponent(name).path)
        }
    }

    @Test(.timeLimit(.minutes(2))) func serveStopsCleanlyOnSIGINTAndWhenItsInputEnds() throws {
        let dir = try ExternalProcess.temporaryDirectory("serve-signals")
        let serve = try Background(
            ["serve", "--port", "0", "--database", ":memory:", "--bcrypt-cost", "4", "--log-level", "error"], in: dir)
        #expect(serve.waitFor("http: ", seconds: 60), "\(serve.all)")
        kill(serve.pid, SIGINT)
        #expect(serve.waitExit(seconds: 20) == 0, "\(serve.all)")
        #expect(serve.stderr.contains("stopped"), "\(serve.all)")

        let input = Pipe()
        let watched = try Background(
            [
                "serve", "--port", "0", "--database", ":memory:", "--bcrypt-cost", "4", "--log-level", "error",
                "--stop-on-stdin-eof",
            ],
            in: dir, stdin: input)
        #expect(watched.waitFor("http: ", seconds: 60), "\(watched.all)")
        try input.fileHandleForWriting.close()
        #expect(watched.waitExit(seconds: 20) == 0, "\(watched.all)")
        #expect(watched.stderr.contains("standard input closed"), "\(watched.all)")
    }

    /// Run from a directory without Fixtures/: the built-in org serves, and SIGTERM stops it with 0.
    @Test(.timeLimit(.minutes(2))) func fakeSalesforceStopsCleanlyOnSIGTERM() throws {
        let dir = try ExternalProcess.temporaryDirectory("fake-sf-signals")
        let fake = try Background(
            ["fake-salesforce", "--generate-accounts", "30", "--port", "0", "--tls-port", "0"], in: dir)
        #expect(fake.waitFor("org: ", seconds: 60), "\(fake.all)")
        kill(fake.pid, SIGTERM)
        #expect(fake.waitExit(seconds: 20) == 0, "\(fake.all)")
        #expect(fake.stderr.contains("SIGTERM, stopping after"), "\(fake.all)")
        #expect(Self.temporaryDirectories(of: fake.pid).isEmpty, "the built-in org's files were left behind")
    }

    /// `simulate --seeds`: the first signal starts no further seed, reports what ran, exits 3.
    @Test(.timeLimit(.minutes(2))) func simulateSeedsStopsAtTheFirstSignal() throws {
        let dir = try ExternalProcess.temporaryDirectory("simulate-signals")
        let sim = try Background(
            [
                "simulate", "convergence-smoke", "--seeds", "100000", "--report-dir",
                dir.appendingPathComponent("Reports").path,
            ], in: dir)
        #expect(sim.waitFor("whalesim simulate convergence-smoke", seconds: 30), "\(sim.all)")
        Thread.sleep(forTimeInterval: 1.5)
        kill(sim.pid, SIGINT)
        let status = sim.waitExit(seconds: 60)
        #expect(status == 3, "exit \(String(describing: status)): \(sim.all)")
        #expect(sim.stdout.contains("interrupted by SIGINT: "), "\(sim.all)")
        #expect(sim.stdout.contains("of 100000 seeds (interrupted by SIGINT)"), "\(sim.all)")
        #expect(sim.stdout.contains("report: "), "\(sim.all)")
        // Not a terminal: no progress bar, no carriage returns.
        #expect(!sim.stderr.contains("\r"), "\(sim.all)")
    }
}
