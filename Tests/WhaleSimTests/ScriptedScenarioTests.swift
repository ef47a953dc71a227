import Foundation
import Testing
import WhaleProtocol
@testable import WhaleSim

/// Scripted scenarios (docs/scripted-scenarios.md): decoded strictly, followed exactly, written
/// back by `scriptedYAML`, and the server-side catalog faults replayed from hand-written scripts.
@Suite struct ScriptedScenarioTests {
    func problems(_ yaml: String) -> [String] {
        do {
            _ = try Scenario.decode(yaml: yaml, source: "test.yml")
            return []
        } catch {
            return error.problems
        }
    }

    static let header = """
        name: t
        clients: {count: 2, documents: 1, protocol: 2}
        network: {delay: {distribution: fixed, value: 2}, queue-bound: 64}
        checkers: [convergence, intention, revisions, liveness]
        """

    func scenario(_ steps: String, delivery: String = "scripted", extra: String = "") throws -> Scenario {
        try Scenario.decode(
            yaml: Self.header + "\n" + extra + "\nscript:\n  delivery: \(delivery)\n  steps:\n" + steps, source: "t")
    }

    @Test func aScriptDecodesEveryKindOfStep() throws {
        let s = try scenario(
            """
                - {at: 0, client: 0, do: connect}
                - {at: 3, client: 0, do: edit, position: 0, delete: 2, insert: "x\\n"}
                - {at: 4, client: 1, do: select, anchor: 1, head: 3}
                - {at: 4, client: 1, do: select, anchor: 2}
                - {at: 5, client: 0, do: arrive}
                - {at: 6, client: 1, do: receive, revision: 1}
                - {at: 7, client: 1, do: slow}
                - {at: 8, client: 1, do: unslow}
                - {at: 9, client: 0, do: disconnect, cause: cable}
                - {at: 9, client: 1, do: disconnect}
            """)
        #expect(s.script?.delivery == .scripted)
        #expect(
            s.script?.steps.map(\.action) == [
                .connect, .edit(position: 0, delete: 2, insert: "x\n"), .select(anchor: 1, head: 3),
                .select(anchor: 2, head: 2),
                .arrive, .receive(revision: 1), .slow(true), .slow(false), .disconnect(cause: "cable"),
                .disconnect(cause: "script"),
            ])
        #expect(s.ops == 1, "a scripted scenario's ops are its edit steps")
    }

    @Test func badStepsAreAllReported() {
        let p = problems(
            Self.header + """

                ops: 5
                mix: {paste: 1}
                script:
                  delivery: sometimes
                  steps:
                    - {at: 5, client: 2, do: connect}
                    - {at: 4, client: 0, do: jump}
                    - {at: 6, client: 0, do: edit, position: 1}
                    - {at: 7, client: 0, do: arrive, position: 3}
                    - {at: 8, do: receive}
                    - {at: 1, client: 0, do: connect}
                """)
        #expect(p.contains("ops: a scripted scenario's ops are its edit steps"))
        #expect(p.contains("mix: a scripted scenario has no workload: its script says what each client does"))
        #expect(p.contains("script.delivery: expected one of network, scripted, got \"sometimes\""))
        #expect(
            p.contains(
                "script.steps[0].client: 2 is not a client of this scenario (clients.count is 2, numbered from 0)"))
        #expect(p.contains { $0.hasPrefix("script.steps[1].do: expected one of connect, disconnect, edit") })
        #expect(
            p.contains(
                "script.steps[2]: an edit deletes or inserts something (give `delete` > 0 or a non-empty `insert`)"))
        #expect(p.contains("script.steps[3].position: not used by `do: arrive`"))
        #expect(p.contains("script.steps[4].client: missing (the client's number, from 0)"))
        #expect(p.contains("script.steps[4].revision: missing (needed by `do: receive`)"))
        #expect(p.contains("script.steps[5].at: 1 is before the previous step's 7 (steps are in tick order)"))
        #expect(
            problems(Self.header + "\nnemeses: [{kind: disconnect, every: 10, duration: 5}]\nscript: {steps: []}")
                == ["nemeses: a scripted scenario has no nemeses: its script says when clients disconnect"])
        #expect(
            problems(Self.header + "\nscript: {delivery: network}") == [
                "script.steps: missing (a list of {at, client, do, ...})"
            ])
    }

    @Test func theWrittenFileReadsBackTheSameScenario() throws {
        var s = try scenario(
            """
                - {at: 0, client: 0, do: connect}
                - {at: 3, client: 0, do: edit, position: 0, insert: "a \\"q\\" \\\\ é 😀\\n\\t"}
                - {at: 4, client: 1, do: select, anchor: 1, head: 3}
                - {at: 5, client: 0, do: arrive}
                - {at: 6, client: 1, do: receive, revision: 1}
                - {at: 9, client: 0, do: disconnect, cause: "a: b"}
            """, extra: "faults: [server-applies-resend-twice]\ntext: {initial: \"x\\ny\"}")
        s.description = "round \"trip\""
        let back = try Scenario.decode(yaml: s.scriptedYAML(comments: ["a comment"]), source: "back")
        #expect(back == s)
    }

    @Test func scriptedDeliveryDecidesTheServerOrder() throws {
        func order(_ arrivals: String) throws -> [Int] {
            let s = try scenario(
                """
                    - {at: 0, client: 0, do: connect}
                    - {at: 0, client: 1, do: connect}
                    - {at: 10, client: 0, do: edit, position: 0, insert: "a"}
                    - {at: 10, client: 1, do: edit, position: 0, insert: "b"}
                \(arrivals)
                """)
            let r = Simulation.run(s, seed: 1)
            #expect(r.verdict == .valid, "\(r.results)")
            return r.history.entries.compactMap {
                if case .serverApply(_, let c, _, _, _) = $0.event { c } else { nil }
            }
        }
        #expect(try order("    - {at: 20, client: 1, do: arrive}\n    - {at: 30, client: 0, do: arrive}") == [1, 0])
        #expect(try order("    - {at: 20, client: 0, do: arrive}\n    - {at: 30, client: 1, do: arrive}") == [0, 1])
        // An arrive before the op is sent is a credit: the op goes through as soon as it is at the head.
        #expect(try order("    - {at: 10, client: 1, do: arrive}\n    - {at: 30, client: 0, do: arrive}") == [1, 0])
        // Both ops reach the head of their links at tick 12 (c00's first): the arrive order still decides.
        #expect(try order("    - {at: 12, client: 1, do: arrive}\n    - {at: 12, client: 0, do: arrive}") == [1, 0])
        #expect(try order("    - {at: 12, client: 0, do: arrive}\n    - {at: 12, client: 1, do: arrive}") == [0, 1])
    }

    @Test func aReceiveStepHoldsBroadcastsUntilTheScriptSaysSo() throws {
        let s = try scenario(
            """
                - {at: 0, client: 0, do: connect}
                - {at: 0, client: 1, do: connect}
                - {at: 10, client: 0, do: edit, position: 0, insert: "a"}
                - {at: 11, client: 0, do: arrive}
                - {at: 50, client: 1, do: edit, position: 0, insert: "b"}
                - {at: 60, client: 1, do: receive, revision: 1}
                - {at: 70, client: 1, do: arrive}
            """)
        let r = Simulation.run(s, seed: 1)
        #expect(r.verdict == .valid, "\(r.results)")
        // c01 edited at t=50 still at revision 0: it had not been shown c00's op (held until t=60).
        let invoked = r.history.entries.compactMap { e -> Int? in
            if case .invoke(1, _, _, let base) = e.event { base } else { nil }
        }
        #expect(invoked == [0])
        let revisions = r.history.entries.compactMap { e -> SimTime? in
            if case .clientRevision(1, 1) = e.event { e.time } else { nil }
        }
        #expect(revisions.first == 60)
    }

    /// The hand-written regression in Scenarios/: valid against a correct server, and the same
    /// checkers invalid on every run with the fault (seeds change nothing a script decides).
    @Test func theScriptedResendScenarioFailsTheSameWayEveryTime() throws {
        let base = try BuiltinScenarios.load("scripted-resend")
        #expect(Simulation.run(base, seed: 1).verdict == .valid)
        var faulty = base
        faulty.faults = ["server-applies-resend-twice"]
        let runs = (1...5).map { Simulation.run(faulty, seed: UInt64($0)) }
        for r in runs {
            #expect(
                r.results.filter { $0.verdict == .invalid }.map(\.checker)
                    == runs[0].results.filter { $0.verdict == .invalid }.map(\.checker))
            #expect(r.history.hash == runs[0].history.hash)
        }
        let intention = try #require(runs[0].results.first { $0.checker == .intention })
        #expect(intention.verdict == .invalid)
        #expect(intention.evidence.contains { $0.contains("applied twice") }, "\(intention.evidence)")
        #expect(faulty.cannotExercise(.serverAppliesResendTwice) == nil)
    }

    @Test func aSlowClientsDroppedBroadcastIsReplayed() throws {
        let s = try scenario(
            """
                - {at: 0, client: 0, do: connect}
                - {at: 0, client: 1, do: connect}
                - {at: 10, client: 1, do: slow}
                - {at: 12, client: 0, do: edit, position: 0, insert: "a"}
                - {at: 20, client: 1, do: unslow}
                - {at: 22, client: 0, do: edit, position: 1, insert: "b"}
            """, delivery: "network")
        #expect(Simulation.run(s, seed: 1).verdict == .valid)
        var faulty = s
        faulty.faults = ["server-drops-slow-client"]
        #expect(faulty.cannotExercise(.serverDropsSlowClient) == nil)
        let r = Simulation.run(faulty, seed: 1)
        #expect(r.results.first { $0.checker == .convergence }?.verdict == .invalid, "\(r.results)")
    }

    @Test func everyoneLeavingResetsTheRevisionUnderTheFault() throws {
        let s = try scenario(
            """
                - {at: 0, client: 0, do: connect}
                - {at: 10, client: 0, do: edit, position: 0, insert: "a"}
                - {at: 30, client: 0, do: disconnect}
                - {at: 40, client: 0, do: connect}
                - {at: 50, client: 0, do: edit, position: 1, insert: "b"}
            """, delivery: "network")
        #expect(Simulation.run(s, seed: 1).verdict == .valid)
        var faulty = s
        faulty.faults = ["revision-reset-on-empty"]
        #expect(faulty.cannotExercise(.revisionResetOnEmpty) == nil)
        let r = Simulation.run(faulty, seed: 1)
        #expect(r.results.first { $0.checker == .revisions }?.verdict == .invalid, "\(r.results)")
    }

    /// `server-crash`, `power-loss` and `server-start` are the server's steps (no client): a power
    /// loss under `ack-before-durable` loses the op acknowledged just before it, a plain crash does not,
    /// and a crash with no `server-start` leaves the server down until the heal.
    @Test func serverStepsCrashLosePowerAndStart() throws {
        func run(_ crash: String, faults: String = "faults: [ack-before-durable]") throws -> SimulationResult {
            let s = try scenario(
                """
                    - {at: 0, client: 0, do: connect}
                    - {at: 10, client: 0, do: edit, position: 0, insert: "a"}
                    - {at: 12, client: 0, do: arrive}
                    - {at: 14, client: 0, do: receive, revision: 1}
                    - {at: 20, do: \(crash)}
                    - {at: 30, do: server-start}
                    - {at: 40, client: 0, do: connect}
                """, extra: faults)
            #expect(s.script?.steps[4].client == ScriptSpec.Step.server)
            #expect(s.script?.activeClients == [0])
            return Simulation.run(s, seed: 1)
        }
        let lost = try run("power-loss")
        #expect(lost.results.first { $0.checker == .intention }?.verdict == .invalid, "\(lost.results)")
        #expect(
            lost.results.first { $0.checker == .intention }?.evidence.contains {
                $0.contains("an acknowledged edit was lost")
            } == true)
        #expect(lost.counts.serverRestarts == 1)
        // kill -9 keeps what was written; and at synchronous = FULL there is nothing to lose.
        #expect(try run("server-crash").verdict == .valid)
        #expect(try run("power-loss", faults: "").verdict == .valid)

        let p = problems(
            Self.header + """

                script:
                  steps:
                    - {at: 1, client: 0, do: power-loss}
                    - {at: 2, do: server-start, cause: x}
                """)
        #expect(
            p.contains(
                "script.steps[0].client: a server step (server-crash, power-loss, server-start) names no client"),
            "\(p)")
        #expect(p.contains("script.steps[1].cause: not used by `do: server-start`"), "\(p)")

        // Written back without a client, read back the same; cutting clients keeps server steps.
        let s = try scenario(
            """
                - {at: 0, client: 1, do: connect}
                - {at: 5, do: server-crash}
                - {at: 6, do: server-start}
            """)
        #expect(try Scenario.decode(yaml: s.scriptedYAML(), source: "back") == s)
        #expect(s.scriptedYAML().contains("- {at: 5, do: server-crash}"))
        #expect(
            s.script?.keepingClients([1]).steps.map(\.client) == [0, ScriptSpec.Step.server, ScriptSpec.Step.server])
        #expect(Scenario.stepLine(s.script!.steps[1], clients: 2) == "t=5 server server-crash")
    }

    @Test func overridesCutTheScript() throws {
        let s = try scenario(
            """
                - {at: 0, client: 0, do: connect}
                - {at: 0, client: 1, do: connect}
                - {at: 10, client: 0, do: edit, position: 0, insert: "a"}
                - {at: 11, client: 1, do: edit, position: 0, insert: "b"}
                - {at: 12, client: 0, do: edit, position: 0, insert: "c"}
            """, delivery: "network")
        let cut = ScenarioOverrides(clients: 1, ops: 1).apply(to: s)
        #expect(cut.script?.steps.map(\.client) == [0, 0])
        #expect(cut.ops == 1)
    }

    @Test func theShrinkerDeletesWhatTheFailureDoesNotNeed() throws {
        var s = try BuiltinScenarios.load("scripted-resend")
        s.faults = ["server-applies-resend-twice"]
        let r = Simulation.run(s, seed: 1)
        let kinds = Set(r.results.first { $0.checker == .intention }!.evidence.map(EvidenceKind.of))
        let shrunk = ScriptShrinker.shrink(s, result: r, checker: .intention, kinds: kinds)
        #expect(ScriptShrinker.fails(shrunk.result, checker: .intention, kinds: kinds))
        #expect(shrunk.scenario.clients == 1)
        #expect(shrunk.scenario.script!.steps.count < s.script!.steps.count)
        #expect(shrunk.scenario.ops == 1)
        // The shrunk file replays the shrunk failure.
        let back = try Scenario.decode(yaml: shrunk.scenario.scriptedYAML(), source: "shrunk")
        #expect(ScriptShrinker.fails(Simulation.run(back, seed: 1), checker: .intention, kinds: kinds))
    }

    @Test func evidenceKindsIgnoreNamesNumbersAndTexts() {
        #expect(
            EvidenceKind.of("c001.mk3x:4 applied twice on note-1 (revisions 3 and 5): its text \"a\\\"b\" is doubled")
                == "# applied twice on # (revisions # and #): its text \"…\" is doubled")
        #expect(
            EvidenceKind.of("c00:1 applied twice on note-00 (revisions 1 and 2): its text \"x\" is doubled")
                == EvidenceKind.of("c001.mk3x:4 applied twice on acc-7 (revisions 3 and 5): its text \"ab\" is doubled")
        )
        // The claim: what went wrong with what, not how or when it showed.
        let during = EvidenceKind.of(
            "t=3536 c006 diverged from the server on acc-1001 during the run: the server's op for revision 434 did not fit the local copy: operation does not span the document"
        )
        let other = EvidenceKind.of(
            "t=3652 c010 diverged from the server on acc-1001 during the run: the server's op for revision 434 did not fit the local copy: cannot transform operations on different documents"
        )
        let atTheEnd = EvidenceKind.of(
            "c00 diverged from the server on note-00: lengths 55 and 55, first difference at scalar 1: \"h t\" vs \"hxt\""
        )
        #expect(during != other)
        #expect(EvidenceKind.claim(during) == "# diverged from the server on #")
        #expect(
            EvidenceKind.claim(other) == EvidenceKind.claim(during)
                && EvidenceKind.claim(atTheEnd) == EvidenceKind.claim(during))
        #expect(
            EvidenceKind.claim(
                EvidenceKind.of(
                    "c01:17 was acknowledged at t=2427 but dropped from note-00 at t=2988 (restart from persisted state): an acknowledged edit was lost"
                ))
                == "# was acknowledged at # but dropped from # at #")
        // The cause in the closing parenthesis is how whalesim saw it, live or simulated: not the claim.
        #expect(
            EvidenceKind.claim(
                EvidenceKind.of(
                    "c011.mx1wrv4b:63 was acknowledged at t=2227 but dropped from acc-1000 at t=4077 (the server answered the recorder's resync from revision 308 with its full state at revision 295): an acknowledged edit was lost"
                )) == "# was acknowledged at # but dropped from # at #")
        #expect(
            EvidenceKind.claim(
                EvidenceKind.of("t=4077 acc-1000's server revision went back from 308 to 295 (a (nested) cause)"))
                == "# server revision went back from # to #")
        #expect(EvidenceKind.claim("# was abandoned (dropped") == "# was abandoned (dropped")
        #expect(
            EvidenceKind.claim(
                EvidenceKind.of("c01:17 applied twice on note-00 (revisions 1 and 2): its text \"x\" is doubled"))
                != EvidenceKind.claim(during))
    }
}
