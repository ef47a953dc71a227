import Testing
import WhaleSim
@testable import WhaleRun

/// What a run reports when a signal cuts it short (issue 20): unknown where it could not finish.
@Suite struct InterruptedRunTests {
    @Test func anInterruptedRunSaysUnknownWhereItCouldNotFinish() {
        let results = [
            CheckResult(checker: .convergence, verdict: .valid),
            CheckResult(checker: .intention, verdict: .invalid, evidence: ["c01's insert landed elsewhere"]),
            CheckResult(checker: .cursors, verdict: .valid),
            CheckResult(checker: .revisions, verdict: .valid),
            CheckResult(checker: .liveness, verdict: .invalid, evidence: ["c02 never caught up"]),
        ]
        // Not quiescent: the end-state checkers cannot be judged; the history's own stand.
        let cut = LiveRun.unfinished(results, interruptedBy: "SIGINT", quiet: false, cursorsProbed: false)
        #expect(cut.map(\.verdict) == [.unknown, .invalid, .unknown, .valid, .unknown])
        #expect(
            cut[0].evidence == ["interrupted by SIGINT before the run was quiescent: the end state cannot be judged"])
        #expect(cut[4].evidence.last == "(it would have said invalid: c02 never caught up)")
        #expect(cut[1] == results[1])
        // Quiescent, but the cursor probe was skipped: only cursors is unknown.
        let quiet = LiveRun.unfinished(results, interruptedBy: "SIGTERM", quiet: true, cursorsProbed: false)
        #expect(quiet.map(\.verdict) == [.valid, .invalid, .unknown, .valid, .invalid])
        #expect(quiet[2].evidence == ["interrupted by SIGTERM: the cursor probe did not run"])
    }
}
