import Testing
@testable import WhaleRun
import WhaleSim

/// What whalesim does about the process's limit on open files (``OpenFiles``).
struct OpenFilesTests {
    @Test func theEstimateGrowsWithClientsAndNotes() {
        #expect(OpenFiles.needed(clients: 300, documents: 30) == 916)
        #expect(OpenFiles.needed(clients: 1000, documents: 100) == 2456)
        // The measured peaks (docs/decisions/0044-runs-on-other-peoples-machines.md): 442 for the demo,
        // 1,234 for the soak's first 75 s.
        #expect(OpenFiles.needed(clients: 300, documents: 30) > 2 * 442 - 100)
        #expect(OpenFiles.needed(clients: 1000, documents: 100) > 1234)
        // Without restarts or drops (`bench run`): bench's 10,000 held clients fit a limit of 20,000.
        #expect(OpenFiles.needed(clients: 10_000, documents: 1_000, storms: false) == 12_881)
        #expect(OpenFiles.needed(clients: 300, documents: 30, storms: false) == 680)
    }

    @Test func theLimitsAreReadAndTheSoftOneIsRaised() throws {
        let (soft, hard) = try #require(OpenFiles.limits())
        #expect(soft <= hard)
        let raised = try #require(OpenFiles.raiseSoftLimit())
        #expect(raised >= soft && raised <= hard)
        #expect(OpenFiles.limits()?.soft == raised)
        #expect(!OpenFiles.exhausted())
        #expect(OpenFiles.shortfall(clients: 1, documents: 1) == nil || hard < 260)
    }

    /// A run whalesim could not give its sockets: an end-state checker's `invalid` becomes
    /// `unknown` with why; the history's checkers keep their verdicts.
    @Test func endStateVerdictsOfARunOutOfFilesAreUnknown() {
        let results = [
            CheckResult(checker: .convergence, verdict: .invalid, evidence: ["c008 diverged"]),
            CheckResult(checker: .liveness, verdict: .invalid, evidence: ["no quiescence"]),
            CheckResult(checker: .intention, verdict: .invalid, evidence: ["lost an insert"]),
            CheckResult(checker: .revisions, verdict: .valid, evidence: []),
            CheckResult(checker: .model, verdict: .valid, evidence: []),
        ]
        let out = LiveRun.outOfFiles(results, why: "whalesim ran out of open files")
        #expect(out.map(\.verdict) == [.unknown, .unknown, .invalid, .valid, .valid])
        #expect(out[0].evidence == ["whalesim ran out of open files", "(it would have said invalid: c008 diverged)"])
        #expect(out[2].evidence == ["lost an insert"])
    }
}
