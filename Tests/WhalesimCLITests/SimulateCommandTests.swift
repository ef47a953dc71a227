import Foundation
import Testing

/// `whalesim simulate` run as a subprocess (the built `.build/debug/whalesim`).
@Suite(.serialized) struct SimulateCommandTests {
    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    func whalesim(_ arguments: [String]) throws -> Run {
        let process = Process()
        process.executableURL = Self.packageRoot.appendingPathComponent(".build/debug/whalesim")
        process.arguments = arguments
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

    func temporaryDirectory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("whalesim-sim-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test func defaultRunIsConvergenceSmokeAndWritesARunRecord() throws {
        let reports = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: reports) }
        let run = try whalesim(["simulate", "--seed", "3", "--report-dir", reports.path])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("whalesim simulate convergence-smoke"))
        #expect(run.stdout.contains("convergence  valid"))
        #expect(run.stdout.contains("replay: whalesim simulate convergence-smoke --seed 3"))
        let latest = reports.appendingPathComponent("convergence-smoke/latest")
        let record =
            try JSONSerialization.jsonObject(with: Data(contentsOf: latest.appendingPathComponent("run.json")))
            as? [String: Any]
        #expect(record?["schemaVersion"] as? Int == 3)
        #expect(record?["seed"] as? Int == 3)
        #expect(!FileManager.default.fileExists(atPath: latest.appendingPathComponent("history.jsonl").path))
        let history = try RecordFiles.history(latest)
        #expect(history.hasPrefix("{\"t\":0,"))
        // The rendered files sit beside the record; Reports/latest points at the same run.
        for file in ["report.html", "junit.xml", "summary.json"] {
            #expect(FileManager.default.fileExists(atPath: latest.appendingPathComponent(file).path), "\(file) missing")
        }
        #expect(FileManager.default.fileExists(atPath: reports.appendingPathComponent("latest/summary.json").path))
        #expect(
            try FileManager.default.destinationOfSymbolicLink(atPath: reports.appendingPathComponent("latest").path)
                .hasPrefix("convergence-smoke/"))
    }

    @Test func sameSeedPrintsTheSameHistoryHash() throws {
        let reports = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: reports) }
        let a = try whalesim(["simulate", "unicode", "--seed", "8", "--report-dir", reports.path])
        let b = try whalesim(["simulate", "unicode", "--seed", "8", "--report-dir", reports.path])
        let hash = { (s: String) in s.split(separator: "\n").first { $0.hasPrefix("seed 8:") }.map(String.init) }
        #expect(hash(a.stdout) != nil)
        #expect(hash(a.stdout) == hash(b.stdout))
    }

    @Test func aFaultExitsTwoAndPrintsTheShrunkReplayCommand() throws {
        let reports = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: reports) }
        let run = try whalesim([
            "simulate", "same-position-storm", "--seed", "1", "--fault", "client-tie-priority", "--report-dir",
            reports.path,
        ])
        #expect(run.status == 2, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("convergence  invalid"))
        let lines = run.stdout.split(separator: "\n").map(String.init)
        let index = try #require(lines.firstIndex { $0.hasPrefix("shrunk (") })
        let command = lines[index + 1].trimmingCharacters(in: .whitespaces)
        #expect(command.hasPrefix("whalesim simulate same-position-storm --seed "))
        #expect(command.hasSuffix("--fault client-tie-priority"))
        // The run directory keeps the shrunk history and its report shows it.
        let latest = reports.appendingPathComponent("same-position-storm/latest")
        #expect(FileManager.default.fileExists(atPath: latest.appendingPathComponent("shrunk-history.whr").path))
        let html = try String(contentsOf: latest.appendingPathComponent("report.html"), encoding: .utf8)
        #expect(html.contains("Shrunk history per client"))
        #expect(html.contains(command))
        // The printed command replays a failure.
        let replay = try whalesim(
            Array(command.split(separator: " ").dropFirst().map(String.init)) + [
                "--no-shrink", "--report-dir", reports.path,
            ])
        #expect(replay.status == 2)
    }

    /// A scenario whose path a shell would split: the printed replay commands are quoted, and the
    /// shrunk one, pasted into `sh` as printed, replays the failure.
    @Test func aReplayCommandForAPathWithASpaceAndAQuoteRunsInAShell() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let dir = root.appendingPathComponent("sales team's notes")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let file = dir.appendingPathComponent("storm copy.yml")
        try FileManager.default.copyItem(
            at: Self.packageRoot.appendingPathComponent("Scenarios/same-position-storm.yml"), to: file)
        let run = try whalesim([
            "simulate", file.path, "--seed", "1", "--fault", "client-tie-priority", "--report-dir", root.path,
        ])
        #expect(run.status == 2, "\(run.stdout)\(run.stderr)")
        let quoted = "'" + file.path.replacingOccurrences(of: "'", with: "'\\''") + "'"
        #expect(
            run.stdout.contains("replay: whalesim simulate \(quoted) --seed 1 --fault client-tie-priority"),
            "\(run.stdout)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        let index = try #require(lines.firstIndex { $0.hasPrefix("shrunk (") })
        let command = lines[index + 1].trimmingCharacters(in: .whitespaces)
        #expect(command.hasPrefix("whalesim simulate \(quoted) --seed "), "\(command)")
        let binary = Self.packageRoot.appendingPathComponent(".build/debug/whalesim").path
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        shell.arguments = [
            "-c", "\"$0\" " + command.dropFirst("whalesim ".count) + " --no-shrink --report-dir \"$1\"", binary,
            root.path,
        ]
        shell.standardOutput = Pipe()
        shell.standardError = Pipe()
        try shell.run()
        shell.waitUntilExit()
        #expect(shell.terminationStatus == 2, "the pasted replay did not fail the same way")
    }

    /// A `--report-dir` that cannot hold run directories is refused before anything runs (exit 64,
    /// the same for `run`; `merge` checks it once its shards are read); a record that cannot be written after a passing verdict
    /// exits 74, never 0, so CI does not take a run with no report for a pass.
    @Test func aReportDirectoryThatCannotBeWrittenIsNeverAPass() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("a-file")
        try "not a directory\n".write(to: file, atomically: true, encoding: .utf8)
        for arguments in [["simulate", "--seed", "3"], ["run", "--duration", "5s"]] {
            let run = try whalesim(arguments + ["--report-dir", file.path])
            #expect(run.status == 64, "\(arguments): \(run.stdout)\(run.stderr)")
            #expect(
                run.stderr.contains("--report-dir \(file.path): a file, not a directory"), "\(arguments): \(run.stderr)"
            )
        }
        let under = try whalesim([
            "simulate", "--seed", "3", "--report-dir", file.appendingPathComponent("reports").path,
        ])
        #expect(under.status == 64 && under.stderr.contains("cannot create it"), "\(under.stderr)")
        // The root is fine, but where the run directory goes is taken by a file.
        let root = dir.appendingPathComponent("Reports")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try "taken\n".write(to: root.appendingPathComponent("convergence-smoke"), atomically: true, encoding: .utf8)
        let run = try whalesim(["simulate", "--seed", "3", "--report-dir", root.path])
        #expect(run.status == 74, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("convergence  valid"))
        #expect(run.stderr.contains("could not write the run's record"), "\(run.stderr)")
        #expect(
            run.stderr.contains("exit 74: the verdict above was reached, but its record was not written"),
            "\(run.stderr)")
        // A failing verdict keeps its own code, which already fails the job.
        try "taken\n".write(to: root.appendingPathComponent("same-position-storm"), atomically: true, encoding: .utf8)
        let failing = try whalesim([
            "simulate", "same-position-storm", "--seed", "1", "--fault", "client-tie-priority", "--no-shrink",
            "--report-dir", root.path,
        ])
        #expect(failing.status == 2, "\(failing.stderr)")
        #expect(failing.stderr.contains("could not write the run's record"), "\(failing.stderr)")
    }

    @Test func manySeedsReportTheLowestFailingSeed() throws {
        let reports = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: reports) }
        let run = try whalesim([
            "simulate", "same-position-storm", "--seeds", "3", "--seed", "10", "--fault", "client-tie-priority",
            "--no-shrink", "--report-dir", reports.path,
        ])
        #expect(run.status == 2)
        #expect(run.stdout.contains("3 seeds: 0 valid, 3 invalid, 0 unknown; details for seed 10"))
        #expect(!run.stdout.contains("shrunk ("))
    }

    /// Not a terminal (a pipe, a CI log): the plain lines, one every tenth of the seeds, and no
    /// progress bar (that is drawn on stderr only when stderr is a terminal).
    @Test func manySeedsPrintPlainProgressLinesWhenNotATerminal() throws {
        let reports = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: reports) }
        let run = try whalesim(["simulate", "convergence-smoke", "--seeds", "20", "--report-dir", reports.path])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        for k in stride(from: 2, through: 20, by: 2) {
            #expect(run.stdout.contains("  [\(k)/20] seed "), "\(run.stdout)")
        }
        #expect(!run.stderr.contains("\r") && !run.stderr.contains("seeds/s"), "\(run.stderr)")
    }

    @Test func listFaultsPrintsNamesFirst() throws {
        let run = try whalesim(["simulate", "--list-faults"])
        #expect(run.status == 0)
        let names = run.stdout.split(separator: "\n").map { $0.split(separator: " ").first.map(String.init) ?? "" }
        #expect(names.first == "client-tie-priority")
        #expect(names.count == 20)
        #expect(run.stdout.contains("revision-reset-on-empty  server resets a document's revision to 0"))
        #expect(names[10..<13] == ["echo-storm", "utf8-length-transform", "ack-before-durable"])
        #expect(run.stdout.contains("utf8-length-transform  server's transform counts insert lengths in UTF-8 bytes"))
        // The edge faults come last, listed as the live server's, not as exercised by no scenario.
        #expect(names.suffix(2) == ["note-id-prefix-match", "rejoin-loses-update"])
        #expect(
            run.stdout.contains(
                "rejoin-loses-update  server's pool leave removes every socket of the leaving user, so a member that rejoined before its old socket's close was seen gets no more resourceUpdates (live server only: whalesim serve --fault, caught by whalesim conform)"
            ))
    }

    @Test func aFaultTheScenarioCannotExerciseIsInconclusive() throws {
        let reports = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: reports) }
        let run = try whalesim([
            "simulate", "convergence-smoke", "--fault", "reconnect-drops-unacked", "--report-dir", reports.path,
        ])
        #expect(run.status == 3, "\(run.stdout)")
        #expect(
            run.stdout.contains(
                "inconclusive: --fault reconnect-drops-unacked cannot be exercised: convergence-smoke has no reconnects"
            ))
        let list = try whalesim(["simulate", "--list-faults"])
        #expect(
            list.stdout.contains(
                "reconnect-drops-unacked  client throws unacknowledged edits away when it reconnects (exercised by: flaky-network, live-demo, power-loss, sales-team, scripted-resend, server-restart, soak)"
            ))
    }

    @Test func badInputExits64WithEveryProblem() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let bad = dir.appendingPathComponent("bad.yml")
        try "name: x\nclients: {count: x, protocol: 7}\nbogus: 1\n".write(to: bad, atomically: true, encoding: .utf8)
        let run = try whalesim(["simulate", bad.path])
        #expect(run.status == 64)
        #expect(run.stderr.contains("3 problems"))
        #expect(run.stderr.contains(#"clients.count: expected an integer, got "x""#))
        #expect(run.stderr.contains("clients.protocol: 7 is out of range 1...2"))
        #expect(run.stderr.contains("bogus: unknown key"))

        let live = dir.appendingPathComponent("live.yml")
        try "name: x\nmode: live\n".write(to: live, atomically: true, encoding: .utf8)
        // One scenario, two worlds: a live scenario also runs in virtual time.
        let liveRun = try whalesim(["simulate", live.path, "--report-dir", dir.appendingPathComponent("Reports").path])
        #expect(liveRun.status == 0, "\(liveRun.stdout)\(liveRun.stderr)")
        #expect(liveRun.stdout.contains("convergence  valid"))

        #expect(try whalesim(["simulate", "no-such-scenario"]).status == 64)
        let options = try whalesim(["simulate", "--fault", "nope", "--clients", "0"])
        #expect(options.status == 64)
        #expect(options.stderr.contains("--fault nope: unknown fault"))
        #expect(options.stderr.contains("--clients 0: expected 1...10000"))
        let documents = try whalesim(["simulate", "--clients", "2", "--documents", "3"])
        #expect(documents.status == 64)
        #expect(documents.stderr.contains("--documents 3: more documents than the 2 clients"))
        let seeds = try whalesim(["simulate", "--seeds", "0"])
        #expect(seeds.status == 64)
        #expect(try whalesim(["simulate", "--without-nemesis", "flood"]).status == 64)
        #expect(try whalesim(["simulate", "--queue-bound", "0"]).status == 64)
    }

    @Test func aScenarioFileLoadsFromItsPath() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("tiny.yml")
        try "name: tiny\nclients: {count: 2}\nops: 20\ncheckers: [convergence]\n".write(
            to: file, atomically: true, encoding: .utf8)
        let run = try whalesim(["simulate", file.path, "--seeds", "4", "--report-dir", dir.path])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("4 seeds: 4 valid, 0 invalid, 0 unknown"))
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("tiny/latest/run.json").path))
    }
}
