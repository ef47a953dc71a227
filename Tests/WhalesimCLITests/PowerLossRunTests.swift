import Foundation
import Testing
#if canImport(Glibc)
    import Glibc
#endif

/// Live runs with power-loss windows (`whalesim run`, the database on `whalesim lazyfs`): the
/// reference server as it is loses nothing acknowledged; acknowledging before the commit is
/// durable (`ack-before-durable`) or not syncing at all (`serve --sqlite-synchronous off`) is
/// caught; without a way to lose power the run is inconclusive, never a pass. Short runs.
@Suite(.serialized) struct PowerLossRunTests {
    static var fuseAvailable: Bool { LazyFSCommandTests.fuseAvailable }
    static var skipReason: String { LazyFSCommandTests.fuseUnavailable ?? "" }
    let runner = RunCommandTests()

    /// A scenario with two power losses in a 7 s load.
    static func scenario(name: String, faults: String = "") -> String {
        """
        name: \(name)
        \(RunCommandTests.header)
        clients: {count: 12, documents: 2, protocol: 2}
        mix: {typing-burst: 50, paste: 6, delete: 12, idle: 4}
        \(faults)
        nemeses:
          - {kind: power-loss, at: [2500, 5000], duration: 400}
        live:
          duration: 7s
          load: {profile: constant}
          think-time: {distribution: exponential, mean: 60, max: 400}
          keystroke: {distribution: uniform, min: 5, max: 20}
          import: {pages: 0}
          quiescence: 15s
        checkers: [convergence, intention, revisions, liveness]
        """
    }

    @Test(.enabled(if: fuseAvailable, "\(skipReason)"))
    func theReferenceServerLosesNothingAcknowledgedInAPowerLoss() throws {
        let dir = try runner.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (run, record) = try runner.live(Self.scenario(name: "live-power-loss"), in: dir)
        #expect(run.status == 0, "\(run.all)")
        #expect(run.stdout.contains("verdict: pass"), "\(run.stdout)")
        let counts = try #require(record?["counts"] as? [String: Int])
        #expect(counts["serverRestarts"] == 2, "\(counts)")
        let windows = ((record?["series"] as? [String: Any])?["faultWindows"] as? [[String: Any]]) ?? []
        #expect(windows.filter { $0["kind"] as? String == "power-loss" }.count == 2, "\(windows)")
        let notes = (record?["notes"] as? [String]) ?? []
        #expect(notes.contains { $0.contains("on whalesim lazyfs") }, "\(notes)")
    }

    @Test(.enabled(if: fuseAvailable, "\(skipReason)"))
    func ackBeforeDurableIsCaughtByAPowerLoss() throws {
        let dir = try runner.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (run, _) = try runner.live(
            Self.scenario(name: "live-ack-before-durable", faults: "faults: [ack-before-durable]"), in: dir)
        #expect(run.status == 2, "\(run.all)")
        #expect(run.stdout.contains("verdict: correctness violated (exit 2)"), "\(run.stdout)")
        #expect(run.stdout.contains("intention    invalid"), "\(run.stdout)")
        // The lost acknowledged ops are named, with when they were acknowledged and dropped.
        #expect(run.stdout.contains("an acknowledged edit was lost"), "\(run.stdout)")
        // The run's reproducer replays the power loss in the simulator (a `power-loss` step where the
        // record noted one): the same checker fails with the same kind of evidence, shrunk small.
        #expect(run.stdout.contains(": reproduced"), "\(run.stdout)")
        let runDir = dir.appendingPathComponent("Reports/latest").resolvingSymlinksInPath()
        let reproducer = try String(contentsOf: runDir.appendingPathComponent("reproducer.yml"), encoding: .utf8)
        #expect(reproducer.contains("do: power-loss}") && reproducer.contains("do: server-start}"))
        // A lost acknowledged op is named by intention; the revisions the server then hands out
        // again carry other ops, which clients that had them find (convergence: diverged).
        try ReproduceCommandTests.expectShrunkReproducer(
            in: runDir, reports: dir.appendingPathComponent("Reports"),
            checkers: ["intention", "convergence", "revisions"], cli: runner)
        let shrunkFile = try String(contentsOf: runDir.appendingPathComponent("reproducer-shrunk.yml"), encoding: .utf8)
        #expect(shrunkFile.contains("do: power-loss}"), "a power loss is what loses the op: \(shrunkFile)")
    }

    /// `storage: {synchronous: off}` in the scenario: the embedded server runs SQLite without a sync,
    /// its database on the run's lazyfs mount; the power loss takes acknowledged ops (exit 2), as the
    /// simulator's model of the same scenario says (StorageSyncTests).
    @Test(.enabled(if: fuseAvailable, "\(skipReason)"))
    func aScenarioAtSynchronousOffIsCaughtOnTheEmbeddedServer() throws {
        let dir = try runner.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (run, record) = try runner.live(
            Self.scenario(name: "live-embedded-synchronous-off", faults: "storage: {synchronous: off}"), in: dir,
            extra: ["--no-reproduce"])
        #expect(run.status == 2, "\(run.all)")
        #expect(run.stdout.contains("verdict: correctness violated (exit 2)"), "\(run.stdout)")
        // The setup was written back before the load: the loss is the load's ops, each named.
        #expect(run.stdout.contains("an acknowledged edit was lost"), "\(run.stdout)")
        let options = (record?["options"] as? [String: Any]) ?? [:]
        #expect(options["storageSynchronous"] as? String == "off", "\(options)")
    }

    /// The team's-server path: `whalesim serve --sqlite-synchronous off` on a lazyfs mount the
    /// test made, killed and started by a --restart-command script, dropped through --lazyfs-control.
    /// With synchronous OFF a power loss takes the whole database (the run's imported accounts
    /// included, never synced). The runner used to die in NIO then (`NIOAny.swift:208: tried to
    /// decode as type HTTPPart<HTTPRequestHead, IOData> but found WebSocketFrame`): closing a
    /// LeanSocket whose upgrade the server had not answered wrote a close frame into the HTTP
    /// encoder. LeanSocket now hangs up without one until the upgrade is done.
    @Test(.enabled(if: fuseAvailable, "\(skipReason)"))
    func synchronousOffIsCaughtThroughRestartCommandAndLazyfsControl() throws {
        let dir = try runner.scratch()
        let fs = try LazyFSCommandTests.LazyFSProcess()
        defer {
            fs.stop()
            try? FileManager.default.removeItem(at: dir)
        }
        let team = try TeamServer(directory: dir, dataDirectory: fs.mount, extra: ["--sqlite-synchronous", "off"])
        defer { team.kill() }
        let file = dir.appendingPathComponent("scenario.yml")
        try Self.scenario(name: "live-synchronous-off").replacingOccurrences(
            of: "  duration: 7s", with: "  duration: 7s\n  server: \(team.url)"
        )
        .write(to: file, atomically: true, encoding: .utf8)
        // Output to a file, not a pipe: the server the restart command starts in the background
        // inherits the run's output, and a pipe would not end until that server does.
        let whalesim = RunCommandTests.root.appendingPathComponent(".build/debug/whalesim").path
        let output = dir.appendingPathComponent("run.out")
        let status = system(
            "cd '\(RunCommandTests.root.path)' && '\(whalesim)' run '\(file.path)' --report-dir '\(dir.path)/Reports' --quiet --restart-command '\(team.script.path)' --lazyfs-control '\(fs.control.path)' > '\(output.path)' 2>&1 < /dev/null"
        )
        let printed = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        #expect((status >> 8) & 0xff == 2, "\(printed)")
        #expect(printed.contains("verdict: correctness violated (exit 2)"), "\(printed)")
        // The run wrote the mount back before its load (the team's users and accounts stay): the loss is named.
        #expect(printed.contains("an acknowledged edit was lost"), "\(printed)")
        // The replay names the restart command once, quoted by the shell rules only if it must be.
        let replay = try #require(printed.split(separator: "\n").first { $0.hasPrefix("replay: ") }, "\(printed)")
        #expect(
            replay.contains("--restart-command \(team.script.path) ")
                || replay.contains("--restart-command '\(team.script.path)' "), "\(replay)")
    }

    /// The same window against a server whalesim neither starts nor can drop: unavailable, exit 3.
    @Test func aPowerLossWithoutAWayToLosePowerIsInconclusive() throws {
        let dir = try runner.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try ServeProcess(database: ":memory:")
        defer { server.stop() }
        let (run, record) = try runner.live(
            Self.scenario(name: "live-power-loss-unavailable").replacingOccurrences(
                of: "  duration: 7s", with: "  duration: 3s\n  server: \(server.url)"), in: dir)
        #expect(run.status == 3, "\(run.all)")
        #expect(
            run.stdout.contains(
                "verdict: inconclusive (exit 3): power-loss windows: the server at \(server.url) is not embedded; give --restart-command and --lazyfs-control"
            ), "\(run.stdout)")
        #expect(record?["verdict"] as? String == "unknown")
        let bad = try runner.whalesim(["run", "live-demo", "--restart-command", "true"])
        #expect(bad.status == 64)
        #expect(
            bad.stderr.contains("--restart-command and --lazyfs-control are for a --server whalesim does not start"),
            "\(bad.all)")
    }

    /// `whalesim serve` run the way a team runs its own server: a script that kills it (SIGKILL)
    /// and starts it again on the same port, database and signing key.
    struct TeamServer {
        let url: String
        let script: URL
        let directory: URL

        init(directory: URL, dataDirectory: URL, extra: [String]) throws {
            self.directory = directory
            // A free port: bind port 0 once, read it, let it go.
            let probe = try ServeProcess(database: ":memory:")
            let port = URL(string: probe.url)!.port!
            probe.stop()
            url = "http://127.0.0.1:\(port)"
            let whalesim = RunCommandTests.root.appendingPathComponent(".build/debug/whalesim").path
            let serve =
                ([
                    whalesim, "serve", "--port", "\(port)", "--database",
                    dataDirectory.appendingPathComponent("team.sqlite").path,
                    "--fixtures", RunCommandTests.root.appendingPathComponent("Fixtures/whaler/seed.json").path,
                    "--bcrypt-cost", "4",
                    "--log-level", "error", "--max-messages-per-second", "10000", "--jwt-secret",
                    "team-secret-of-32-bytes-0123456789",
                ] + extra)
                .map { "'\($0)'" }.joined(separator: " ")
            script = directory.appendingPathComponent("team-server.sh")
            try """
            #!/bin/sh
            # kill: SIGKILL the server and wait for it; start: start it, wait until it listens.
            cd '\(directory.path)'
            case "$1" in
            kill) pid=$(cat server.pid); kill -9 "$pid"; while kill -0 "$pid" 2>/dev/null; do sleep 0.01; done ;;
            start)
              for attempt in $(seq 1 100); do
                \(serve) > serve.out 2>serve.err < /dev/null &
                echo $! > server.pid
                for i in $(seq 1 200); do
                  grep -q '^http: ' serve.out 2>/dev/null && exit 0
                  kill -0 "$(cat server.pid)" 2>/dev/null || break
                  sleep 0.05
                done
                sleep 0.1
              done
              exit 1 ;;
            esac
            """.write(to: script, atomically: true, encoding: .utf8)
            chmod(script.path, 0o755)
            // system(), not Process: the server left running in the background would keep
            // Process's exit pipe open, and waitUntilExit would wait for it.
            guard system("'\(script.path)' start") == 0 else {
                throw ServeProcess.ServeFailed(
                    printed: (try? String(contentsOf: directory.appendingPathComponent("serve.err"), encoding: .utf8))
                        ?? "")
            }
        }

        func kill() {
            guard
                let pid = (try? String(contentsOf: directory.appendingPathComponent("server.pid"), encoding: .utf8))
                    .flatMap({ Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) })
            else { return }
            Glibc.kill(pid, SIGKILL)
        }
    }
}
