import Foundation
import Testing
import WhalesimTesting

/// One `whalesim` file runs from anywhere (docs/distributed-runs.md, "build once, copy the
/// binary"): copied to a fresh directory and run from another one with no Fixtures/ or
/// Scenarios/ in sight, it simulates a built-in scenario and runs a short live run on the
/// built-in Whaler seed and Salesforce org; `--fixtures DIR` still overrides.
@Suite(.serialized) struct PortableBinaryTests {
    func copiedBinary() throws -> (binary: URL, cwd: URL) {
        let home = try ExternalProcess.temporaryDirectory("binary-home")
        let cwd = try ExternalProcess.temporaryDirectory("binary-cwd")
        let binary = home.appendingPathComponent("whalesim")
        try FileManager.default.copyItem(at: ExternalProcess.whalesimBinary, to: binary)
        return (binary, cwd)
    }

    func run(_ binary: URL, _ arguments: [String], in cwd: URL) throws -> (status: Int32, out: String, pid: Int32) {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.currentDirectoryURL = cwd
        let log = cwd.appendingPathComponent("output-\(UUID().uuidString.prefix(6)).txt")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        process.waitUntilExit()
        return (
            process.terminationStatus, (try? String(contentsOf: log, encoding: .utf8)) ?? "", process.processIdentifier
        )
    }

    @Test(.timeLimit(.minutes(3))) func aCopiedBinarySimulatesAndRunsFromAnotherDirectory() throws {
        let (binary, cwd) = try copiedBinary()
        #expect(!FileManager.default.fileExists(atPath: cwd.appendingPathComponent("Fixtures").path))
        let simulated = try run(binary, ["simulate", "convergence-smoke", "--seed", "1"], in: cwd)
        #expect(simulated.status == 0, "\(simulated.out)")
        #expect(FileManager.default.fileExists(atPath: cwd.appendingPathComponent("Reports/latest/report.html").path))

        let live = try run(
            binary, ["run", "live-demo", "--clients", "4", "--documents", "2", "--duration", "2s", "--quiet"], in: cwd)
        // 2 s of live-demo never reach its steady load (a 15 s ramp): its `{steady}` threshold has no
        // samples, which is `unknown` (exit 3) and says so, never a breach (issue 46). 1: a latency
        // threshold on a loaded CI machine.
        #expect([0, 1, 3].contains(live.status), "\(live.out)")
        if live.status == 3 {
            #expect(live.out.contains("no samples of op_ack in the steady window"), "\(live.out)")
        }
        #expect(live.out.contains("whalesim run live-demo: 4 clients"), "\(live.out)")
        let record = try #require(
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: cwd.appendingPathComponent("Reports/latest/run.json"))) as? [String: Any])
        #expect(record["verdict"] as? String == "valid", "\(live.out)")
        #expect(live.out.contains("salesforce http://127.0.0.1:"), "the embedded fake Salesforce ran: \(live.out)")
        // The built-in fixtures were written to a temporary directory, and removed at the end.
        let left = try FileManager.default.contentsOfDirectory(atPath: FileManager.default.temporaryDirectory.path)
            .filter { $0.hasPrefix("whalesim-run-\(live.pid)-") }
        #expect(left.isEmpty, "\(left)")
    }

    /// `conform` starts its own reference server from the same fixtures lookup as `run` (it
    /// refused to run outside the project before: "no whaler/seed.json there").
    @Test(.timeLimit(.minutes(3))) func aCopiedBinaryRunsTheConformanceSuiteFromAnotherDirectory() throws {
        let (binary, cwd) = try copiedBinary()
        let conform = try run(
            binary,
            [
                "conform", "--only", "ot.concurrent-insert-same-position", "--out",
                cwd.appendingPathComponent("conform").path,
            ], in: cwd)
        #expect(conform.status == 0, "\(conform.out)")
        #expect(conform.out.contains("pass  ot.concurrent-insert-same-position"), "\(conform.out)")
        let empty = try ExternalProcess.temporaryDirectory("empty-conform-fixtures")
        let refused = try run(binary, ["conform", "--fixtures", empty.path], in: cwd)
        #expect(refused.status == 64, "\(refused.out)")
        #expect(refused.out.contains("--fixtures \(empty.path): no whaler/seed.json there"), "\(refused.out)")
    }

    /// `bench run` finds its fixtures as `run` does (it stopped at once outside the project before:
    /// "Fixtures/salesforce/small/org.json: missing or unreadable file").
    @Test(.timeLimit(.minutes(3))) func aCopiedBinaryBenchmarksFromAnotherDirectory() throws {
        let (binary, cwd) = try copiedBinary()
        let bench = try run(
            binary,
            [
                "bench", "run", "--latency-clients", "4", "--note-size", "2", "--seconds", "1", "--runs", "1",
                "--memory-clients", "0", "--socket-memory", "0", "--ceiling-clients", "0", "--protocol", "2",
            ], in: cwd)
        #expect(bench.status == 0, "\(bench.out)")
        #expect(bench.out.contains("verdict valid"), "\(bench.out)")
        #expect(!bench.out.contains("missing or unreadable"), "\(bench.out)")
        let left = try FileManager.default.contentsOfDirectory(atPath: FileManager.default.temporaryDirectory.path)
            .filter { $0.hasPrefix("whalesim-run-\(bench.pid)-") }
        #expect(left.isEmpty, "\(left)")
    }

    /// So do the commands whose `--org` is optional (`fuzz soql`, `bench http`, `bench salesforce`):
    /// their default was `Fixtures/salesforce/small` under the working directory.
    @Test(.timeLimit(.minutes(3))) func aCopiedBinaryFuzzesTheBuiltInOrgFromAnotherDirectory() throws {
        let (binary, cwd) = try copiedBinary()
        let fuzz = try run(binary, ["fuzz", "soql", "--seed", "1", "--count", "20"], in: cwd)
        #expect(fuzz.status == 0, "\(fuzz.out)")
        #expect(fuzz.out.contains("no findings"), "\(fuzz.out)")
        let left = try FileManager.default.contentsOfDirectory(atPath: FileManager.default.temporaryDirectory.path)
            .filter { $0.hasPrefix("whalesim-run-\(fuzz.pid)-") }
        #expect(left.isEmpty, "\(left)")
        let missing = try run(
            binary,
            ["fuzz", "soql", "--seed", "1", "--count", "1", "--org", cwd.appendingPathComponent("nowhere").path],
            in: cwd)
        #expect(missing.status == 64, "\(missing.out)")
        #expect(missing.out.contains("--org \(cwd.appendingPathComponent("nowhere").path)"), "\(missing.out)")
    }

    @Test func aGivenFixturesDirectoryOverridesTheBuiltInOnes() throws {
        let (binary, cwd) = try copiedBinary()
        let empty = try ExternalProcess.temporaryDirectory("empty-fixtures")
        let result = try run(binary, ["run", "live-demo", "--fixtures", empty.path, "--duration", "1s"], in: cwd)
        #expect(result.status == 64, "\(result.out)")
        #expect(result.out.contains("--fixtures \(empty.path): no whaler/seed.json there"), "\(result.out)")
    }
}
