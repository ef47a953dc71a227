import Foundation
import Testing
import WhaleConform
import WhaleProtocol
import WhalesimTesting

/// The suite against the reference server, in process (a restart is a stop and a start on the
/// same port and SQLite file): it passes every case; in compatibility mode the protocol-2 cases
/// are not applicable and the rest pass; with each server-side catalog fault switched on, at
/// least one case fails and names that fault. Every case runs once per configuration.
@Suite(.serialized) struct ConformServerTests {
    static let seed = ExternalProcess.packageRoot.appendingPathComponent("Fixtures/whaler/seed.json")

    static func run(
        faults: FaultSet = [], compatibility: Bool = false, cases: [ConformCase] = ConformSuite.cases
    ) async throws -> [ConformResult] {
        let directory = try ExternalProcess.temporaryDirectory("conform")
        let embedded = try await EmbeddedTarget.start(
            directory: directory, fixtures: seed, faults: faults, compatibility: compatibility, executable: nil)
        var target = embedded.target
        // A CI machine shared with other jobs can stall a frame for seconds; a failing case in
        // these configurations is an error reply or a wrong answer, never a wait.
        target.timeout = .seconds(10)
        let results = await ConformSuite.run(target, cases: cases)
        await embedded.stop()
        return results
    }

    static func failures(_ results: [ConformResult]) -> String {
        results.map(ConformSummary.line(for:)).filter { !$0.hasPrefix("pass") }.joined(separator: "\n")
    }

    @Test func theReferenceServerPassesEveryCase() async throws {
        let results = try await Self.run()
        #expect(results.count == ConformSuite.cases.count)
        #expect(results.allSatisfy { $0.verdict == .pass }, "\(Self.failures(results))")
        #expect(ConformSummary(results).exitCode == 0)
    }

    @Test func inCompatibilityModeProtocol2CasesAreNotApplicableAndTheRestPass() async throws {
        let results = try await Self.run(compatibility: true)
        let byId = Dictionary(uniqueKeysWithValues: ConformSuite.cases.map { ($0.id, $0) })
        for r in results {
            if byId[r.id]!.requires.contains(.protocol2) {
                guard case .notApplicable(let reason) = r.verdict else {
                    Issue.record("\(r.id) should be n/a in protocol 1: \(r.verdict)"); continue
                }
                #expect(reason.contains("protocol 2 only"))
            } else {
                #expect(r.verdict == .pass, "\(ConformSummary.line(for: r))")
            }
        }
        #expect(
            results.contains { $0.verdict == .pass }
                && results.contains {
                    if case .notApplicable = $0.verdict { return true }; return false
                })
    }

    /// Every server-side fault but `ack-before-durable`, which only a power loss shows (its commit
    /// follows the ack by up to 50 ms and a kill leaves the page cache): the suite kills, it does not
    /// pull the plug; `PowerLossRunTests` and the simulator's `power-loss` scenario catch it. Nor the
    /// edge faults: `ConformEdgeCaseTests` tries each against the one case that names it, in
    /// seconds, where the whole suite would take minutes a fault.
    static let serverFaults = Fault.allCases.filter { fault in
        !fault.isClientSide && fault != .ackBeforeDurable && !ConformEdgeCaseTests.edges.contains { $0.fault == fault }
    }

    @Test(arguments: serverFaults)
    func eachServerSideFaultFailsACaseThatNamesIt(_ fault: Fault) async throws {
        let results = try await Self.run(faults: [fault])
        let naming = results.filter { r in
            if case .fail = r.verdict { return r.suspects.contains(fault) }
            return false
        }
        #expect(!naming.isEmpty, "no case failed naming \(fault.rawValue):\n\(Self.failures(results))")
        for r in naming { #expect(ConformSummary.line(for: r).contains("catalog fault \(fault.rawValue)")) }
        #expect(ConformSummary(results).exitCode == 2)
        if fault == .utf8LengthTransform {
            // The non-ASCII cases name it; every ASCII OT case passes under it.
            for r in results where r.category == .ot {
                if r.id.hasPrefix("ot.non-ascii") {
                    #expect(naming.contains { $0.id == r.id }, "\(ConformSummary.line(for: r))")
                } else {
                    #expect(r.verdict == .pass, "\(ConformSummary.line(for: r))")
                }
            }
        }
    }
}
