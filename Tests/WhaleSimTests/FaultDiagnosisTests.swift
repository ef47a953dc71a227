import Foundation
import Testing
import WhaleProtocol
@testable import WhaleSim

/// `reproduce`'s diagnosis on the simulator's own records (deterministic, no sockets): a record
/// of a faulty server, read as if it came from a `--server` whalesim knows nothing about (its
/// faults taken out of the record), is diagnosed as that fault; the side decides which faults
/// are offered; a fault whose symptoms the run lacked is ruled out. The live walk over
/// `serve --fault F` is in WhalesimCLITests (DiagnoseServerFaultTests).
@Suite struct FaultDiagnosisTests {
    let reproducer = ReproducerTests()

    /// The first failing seed of flaky-network under `fault`, as a record of a foreign server.
    func foreignRecord(_ fault: Fault) throws -> (LiveRecordSummary, [NamedHistoryLine]) {
        var s = try BuiltinScenarios.load("flaky-network")
        s.faults = [fault.rawValue]
        if fault == .serverDropsSlowClient { s.queueBound = 2 }
        let failing = try #require(
            (1...50).lazy.map { Simulation.run(s, seed: UInt64($0)) }.first { $0.verdict == .invalid })
        var (summary, lines) = try reproducer.record(failing)
        summary.faults = []
        summary.server = "http://their-server:8080"
        return (summary, lines)
    }

    @Test(arguments: [Fault.serverAppliesResendTwice, .serverDropsSlowClient, .revisionResetOnEmpty])
    func aForeignServersFaultIsNamed(_ fault: Fault) throws {
        var named = 0
        var s = try BuiltinScenarios.load("flaky-network")
        s.faults = [fault.rawValue]
        if fault == .serverDropsSlowClient { s.queueBound = 2 }
        // As the reproducer itself: the first three failing seeds, at least one named (revision
        // reset's seed 1 depends on when a join reached the server, which no record holds).
        let failing = Array(
            (1...50).lazy.map { Simulation.run(s, seed: UInt64($0)) }.filter { $0.verdict == .invalid }.prefix(3))
        for result in failing {
            var (summary, lines) = try reproducer.record(result)
            summary.faults = []
            summary.server = "http://their-server:8080"
            #expect(summary.foreignSide == .server)
            let r = try Reproduction.make(
                summary: summary, lines: lines, requestedNote: nil, shrink: false, diagnose: summary.foreignSide)
            let d = try #require(r.diagnosis, "seed \(result.seed): the correct server reproduced it, no diagnosis")
            #expect(d.side == .server)
            #expect(d.tried.allSatisfy { $0.allSatisfy { !$0.isClientSide } }, "a client-side fault was tried")
            #expect(d.unexercisable.allSatisfy { !$0.fault.isClientSide })
            // Never a wrong name: what is named first is the fault, or nothing.
            if let best = d.matches.first {
                #expect(best.faults == [fault], "seed \(result.seed): named \(best.faults), not \(fault)")
                #expect(r.status == .reproduced && r.scenario.faults.contains(fault.rawValue))
                #expect(d.sentence.hasPrefix("your server behaves like \(fault.rawValue) (\(fault.summary))"))
                named += 1
            } else {
                #expect(d.sentence.hasPrefix("reproduces with none of the catalog's faults"))
                #expect(r.status == .notReproduced && !r.notes.isEmpty)
            }
            if fault != .revisionResetOnEmpty, named > 0 { break }
        }
        #expect(named >= 1, "\(fault): none of seeds \(failing.map(\.seed)) named it")
    }

    /// The record's side decides what is offered: a run whose server was whalesim's own has no
    /// foreign side (nothing is diagnosed); a client-side diagnosis offers only client faults.
    @Test func theSideDecidesWhichFaultsAreOffered() throws {
        var (summary, lines) = try foreignRecord(.serverAppliesResendTwice)
        summary.server = "embedded"
        #expect(summary.foreignSide == nil)
        summary.server = nil
        #expect(summary.foreignSide == nil)
        let plain = try Reproduction.make(
            summary: summary, lines: lines, requestedNote: nil, shrink: false, diagnose: summary.foreignSide)
        #expect(plain.diagnosis == nil && plain.status == .notReproduced)
        let client = try Reproduction.make(
            summary: summary, lines: lines, requestedNote: nil, shrink: false, diagnose: .client)
        let d = try #require(client.diagnosis)
        #expect(d.tried.allSatisfy { $0.allSatisfy(\.isClientSide) }, "\(d.tried)")
        #expect(d.matches.allSatisfy { $0.faults.allSatisfy(\.isClientSide) })
        #expect(!d.matches.contains { $0.faults.contains(.serverAppliesResendTwice) })
    }

    /// A fault that fails the checker as live but also fails one the live run found valid did
    /// not happen there: with the live intention verdict valid, resend-twice (whose ops applied
    /// twice show in intention) is ruled out, said with what it showed.
    @Test func aFaultWithSymptomsTheRunLackedIsRuledOut() throws {
        var (summary, lines) = try foreignRecord(.serverAppliesResendTwice)
        let failing = try summary.failingNote(requested: nil)
        // flaky-network's first failure under the fault is convergence; intention is the one made valid.
        try #require(failing.checker != .intention, "\(failing.checker)")
        summary.results = summary.results.map { r in
            r.checker == .intention ? CheckResult(checker: .intention, verdict: .valid, evidence: []) : r
        }
        let r = try Reproduction.make(
            summary: summary, lines: lines, requestedNote: nil, shrink: false, diagnose: .server)
        let d = try #require(r.diagnosis)
        #expect(!d.matches.contains { $0.faults.contains(.serverAppliesResendTwice) })
        let ruled = try #require(d.rejected.first { $0.faults == [.serverAppliesResendTwice] }, "\(d.rejected)")
        #expect(ruled.why.hasPrefix("intention invalid, valid live"), "\(ruled.why)")
    }

    /// A client that diverged after the simulated server lost acknowledged ops in a restart is not
    /// held against the fault (which clients came back at a revision the new history reached again
    /// hangs on what the live storage kept); without that loss, or with another symptom, it is.
    @Test func aDivergenceAfterARestartThatLostOpsRulesNothingOut() throws {
        var (summary, _) = try foreignRecord(.serverAppliesResendTwice)
        summary.results = summary.results.map { CheckResult(checker: $0.checker, verdict: .valid, evidence: []) }
        var s = try BuiltinScenarios.load("power-loss")
        s.faults = [Fault.ackBeforeDurable.rawValue]
        let lossy = try #require(
            (1...20).lazy.map { Simulation.run(s, seed: UInt64($0)) }.first { r in
                r.history.entries.contains {
                    if case .serverRevision(_, let from, let to, Simulation.restartCause) = $0.event {
                        from > to
                    } else {
                        false
                    }
                }
            })
        func diverging(_ r: SimulationResult, _ evidence: [String]) -> SimulationResult {
            var r = r
            r.results = r.results.map {
                $0.checker == .convergence
                    ? CheckResult(checker: .convergence, verdict: .invalid, evidence: evidence) : $0
            }
            r.results = r.results.map {
                $0.checker == .convergence ? $0 : CheckResult(checker: $0.checker, verdict: .valid, evidence: [])
            }
            return r
        }
        let diverged = [
            "c03 diverged from the server on note-00: lengths 272 and 273, first difference at scalar 234: \"a\" vs \"b\""
        ]
        #expect(FaultDiagnosis.contradiction(diverging(lossy, diverged), live: summary) == nil)
        let replay = ["note-00: the server's text is not the replay of its history: lengths 1 and 0"]
        #expect(
            FaultDiagnosis.contradiction(diverging(lossy, diverged + replay), live: summary)?.hasPrefix(
                "convergence invalid, valid live") == true)
        s.faults = []
        let whole = Simulation.run(s, seed: lossy.seed)
        #expect(
            FaultDiagnosis.contradiction(diverging(whole, diverged), live: summary)?.hasPrefix(
                "convergence invalid, valid live") == true)
    }

    /// A spent budget stops the diagnosis and says so; nothing is named from a partial search.
    @Test func aSpentBudgetStopsAndSaysSo() throws {
        let (summary, lines) = try foreignRecord(.serverAppliesResendTwice)
        let r = try Reproduction.make(
            summary: summary, lines: lines, requestedNote: nil, shrink: false, diagnose: .server,
            diagnosisDeadline: Date.distantPast)
        let d = try #require(r.diagnosis)
        #expect(d.stop == .budget && d.tried.isEmpty && d.matches.isEmpty)
        #expect(d.sentence.contains("stopped because its time budget ran out"), "\(d.sentence)")
        #expect(r.status == .notReproduced)
    }
}
