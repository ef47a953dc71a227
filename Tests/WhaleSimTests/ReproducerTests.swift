import Foundation
import Testing
import WhaleProtocol
@testable import WhaleSim

/// `whalesim reproduce`'s core: a run record's failing note cut into a scripted scenario that
/// fails the same checker with the same kind of evidence, and shrinks. The records here are the
/// simulator's own (deterministic and fast); the live ones are in WhalesimCLITests.
@Suite struct ReproducerTests {
    /// The record a failing simulated run writes, read back as `reproduce` reads it.
    func record(_ result: SimulationResult) throws -> (LiveRecordSummary, [NamedHistoryLine]) {
        let json = String(
            decoding: try RunRecord(
                result: result, scenarioRef: result.scenario.name, overrides: ScenarioOverrides(), shrunk: nil
            ).json(), as: UTF8.self)
        return (
            try LiveRecordSummary.read(json, source: "run.json"),
            try History.decodeJSONLines(result.history.jsonLines(), source: "history.jsonl")
        )
    }

    /// For each server-side catalog fault: of the first three failing seeds of flaky-network, the
    /// reproducer of at least one (in practice the first, except revision-reset-on-empty's seed 1,
    /// whose reset depends on when a join reached the server, which no record holds) fails the
    /// same checker with the same kind of evidence and shrinks to at most 3 clients and 10 edits;
    /// one that does not reproduce says why.
    @Test(arguments: [Fault.serverAppliesResendTwice, .serverDropsSlowClient, .revisionResetOnEmpty])
    func eachServerFaultsFailureBecomesAShrunkScriptedReproducer(_ fault: Fault) throws {
        var s = try BuiltinScenarios.load("flaky-network")
        s.faults = [fault.rawValue]
        if fault == .serverDropsSlowClient { s.queueBound = 2 }  // a link queue that fills (as the shrinker does)
        let failing = Array(
            (1...50).lazy.map { Simulation.run(s, seed: UInt64($0)) }.filter { $0.verdict == .invalid }.prefix(3))
        #expect(!failing.isEmpty, "\(fault) not caught in 50 seeds")
        var reproduced = 0
        for result in failing {
            let (summary, lines) = try record(result)
            let r = try Reproduction.make(summary: summary, lines: lines, requestedNote: nil)
            guard r.status == .reproduced else {
                #expect(!r.notes.isEmpty, "\(fault) seed \(result.seed): not reproduced, and no reason given")
                continue
            }
            reproduced += 1
            let shrunk = try #require(r.shrunk)
            #expect(shrunk.scenario.clients <= 3 && shrunk.scenario.ops <= 10, "\(shrunk.scenario.scriptedYAML())")
            // The shrunk file replays the failure, whatever the seed.
            let back = try Scenario.decode(yaml: shrunk.scenario.scriptedYAML(), source: "shrunk")
            let kinds = Set(r.liveEvidence.map(EvidenceKind.of))
            #expect(ScriptShrinker.fails(Simulation.run(back, seed: 99), checker: r.checker, kinds: kinds))
            if fault != .revisionResetOnEmpty { break }
        }
        #expect(reproduced >= 1, "\(fault): none of seeds \(failing.map(\.seed)) reproduced")
    }

    @Test func theFailingNoteIsTheOneTheFirstViolationNames() throws {
        let json = """
            {"scenario": "x", "seed": 3, "timeUnit": "ms", "options": {"protocol": "2", "faults": "server-applies-resend-twice", "checkers": "convergence, intention"},
             "verdicts": [{"checker": "convergence", "verdict": "valid", "evidence": []},
                          {"checker": "intention", "verdict": "invalid", "evidence": ["c1.t:1 applied twice on note-10 (revisions 1 and 2): its text \\"a\\" is doubled"]}],
             "documents": [{"name": "note-1", "clients": ["c1"]}, {"name": "note-10", "clients": ["c2"]}], "replayCommand": "whalesim run x --seed 3"}
            """
        let summary = try LiveRecordSummary.read(json, source: "run.json")
        #expect(summary.faults == ["server-applies-resend-twice"] && summary.protocolVersion == 2)
        let picked = try summary.failingNote(requested: nil)
        #expect(picked.note.name == "note-10" && picked.checker == .intention)
        #expect(try summary.failingNote(requested: "note-1").note.name == "note-1")
        #expect(throws: ReproduceError.self) { try summary.failingNote(requested: "note-2") }
        do { _ = try summary.failingNote(requested: "note-2") } catch {
            #expect(error.message == "--note note-2: no such note (notes: note-1, note-10)")
        }
        let valid = try LiveRecordSummary.read(
            json.replacingOccurrences(of: "\"invalid\"", with: "\"valid\""), source: "run.json")
        do { _ = try valid.failingNote(requested: nil); Issue.record("a valid run has nothing to reproduce") } catch {
            #expect(error.message == "the run has no violation (verdict valid): nothing to reproduce")
        }
        do { _ = try LiveRecordSummary.read("[1]", source: "run.json"); Issue.record("not an object") } catch {
            #expect(error.message == "run.json: not a JSON object")
        }
        do {
            _ = try LiveRecordSummary.read("{\"scenario\": \"x\"}", source: "run.json"); Issue.record("no options")
        } catch {
            #expect(error.message == "run.json: missing or malformed `options`")
        }
    }

    /// A live server's backpressure mark says after which revision of the note it took effect
    /// (the run writes it from the server's log): the reproducer puts the `slow` step right after
    /// that revision's `arrive` and the `unslow` after the next one's, whatever the mark's time
    /// (here the same millisecond as both applies, and written before them in the record).
    @Test func liveBackpressureMarksGoAfterTheirRevisionsArrive() throws {
        let json = """
            {"scenario": "x", "seed": 3, "timeUnit": "ms", "options": {"protocol": "2", "faults": "server-drops-slow-client", "checkers": "convergence"},
             "verdicts": [{"checker": "convergence", "verdict": "invalid", "evidence": ["c2 diverged from the server on acc-1"]}],
             "documents": [{"name": "acc-1", "clients": ["c1", "c2"], "initialText": "ab"}], "replayCommand": "whalesim run x --seed 3"}
            """
        let history = """
            {"t":10,"type":"connect","client":"c1"}
            {"t":10,"type":"connect","client":"c2"}
            {"t":20,"type":"edit","client":"c1","position":0,"deleted":0,"inserted":"x"}
            {"t":20,"type":"send","client":"c1","opId":"c1:1","op":"[\\"x\\",2]","revision":0}
            {"t":22,"type":"note","text":"c2 backpressure on after revision 1"}
            {"t":22,"type":"serverApply","document":"acc-1","client":"c1","opId":"c1:1","op":"[\\"x\\",2]","revision":1}
            {"t":22,"type":"edit","client":"c1","position":1,"deleted":0,"inserted":"y"}
            {"t":22,"type":"send","client":"c1","opId":"c1:2","op":"[1,\\"y\\",2]","revision":1}
            {"t":22,"type":"note","text":"c2 backpressure off after revision 2"}
            {"t":22,"type":"serverApply","document":"acc-1","client":"c1","opId":"c1:2","op":"[1,\\"y\\",2]","revision":2}
            """
        let summary = try LiveRecordSummary.read(json, source: "run.json")
        let lines = try History.decodeJSONLines(history + "\n", source: "history.jsonl")
        var notes: [String] = []
        let scenario = ReproducerBuilder.build(lines: lines, summary: summary, note: summary.notes[0], notes: &notes)
        let steps = try #require(scenario.script?.steps).filter {
            [.arrive, .slow(true), .slow(false)].contains($0.action)
        }
        #expect(steps.map(\.action) == [.arrive, .slow(true), .arrive, .slow(false)], "\(steps)")
        #expect(steps.map(\.client) == [0, 1, 0, 1])
    }
}
