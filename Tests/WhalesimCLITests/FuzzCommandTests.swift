import Foundation
import Testing

/// `whalesim fuzz soql|wire` on the debug binary: a short run prints its throughput and no
/// finding (exit 0); one case replays with `--verbose` showing its input; bad options exit 64.
@Suite struct FuzzCommandTests {
    static let org = WhalesimRun.binary.deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
        .appendingPathComponent("Fixtures/salesforce/small").path

    @Test func soqlShortRunHasNoFinding() throws {
        let run = try WhalesimRun.run(
            ["fuzz", "soql", "--seed", "3", "--count", "300", "--org", Self.org], stdin: Data())
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("whalesim fuzz soql --seed 3: cases 0..<300, 300 in"))
        #expect(run.stdout.contains("cases/s") && run.stdout.contains("no findings"))
    }

    @Test func oneCaseReplaysVerbosely() throws {
        let run = try WhalesimRun.run(
            ["fuzz", "soql", "--seed", "3", "--from", "42", "--count", "1", "--verbose", "--org", Self.org],
            stdin: Data())
        #expect(run.status == 0)
        #expect(run.stdout.hasPrefix("case 42: "))
    }

    @Test func wireShortRunHasNoFinding() throws {
        let run = try WhalesimRun.run(["fuzz", "wire", "--seed", "3", "--count", "400"], stdin: Data())
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("no findings"))
    }

    @Test func badOptionsExit64() throws {
        let run = try WhalesimRun.run(["fuzz", "soql", "--count", "0"], stdin: Data())
        #expect(run.status == 64)
        #expect(run.stderr.contains("--count 0: expected 1 or more"))
        let missing = try WhalesimRun.run(["fuzz", "soql", "--count", "1", "--org", "/nonexistent"], stdin: Data())
        #expect(missing.status == 64)
    }
}
