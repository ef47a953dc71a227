import Testing
import WhaleProtocol
@testable import WhaleSim

@Suite struct ScenarioOverridesTests {
    @Test func overridesApplyAndSpellThemselvesBack() throws {
        let base = try BuiltinScenarios.load("flaky-network")
        let o = ScenarioOverrides(
            clients: 2, documents: 1, ops: 7, delayMax: 5, queueBound: 3,
            withoutNemeses: [.partition, .disconnect], faults: [.serverDropsSlowClient, .clientTiePriority])
        let s = o.apply(to: base)
        #expect(s.clients == 2 && s.documents == 1 && s.ops == 7 && s.queueBound == 3)
        #expect(s.delay.maximum == 5)
        #expect(s.nemeses.map(\.kind) == [.slowClient])
        #expect(s.faults == ["server-drops-slow-client", "client-tie-priority"])
        #expect(
            o.arguments == [
                "--clients", "2", "--documents", "1", "--ops", "7", "--delay-max", "5", "--queue-bound", "3",
                "--without-nemesis", "disconnect", "--without-nemesis", "partition",
                "--fault", "client-tie-priority", "--fault", "server-drops-slow-client",
            ])
        #expect(ScenarioOverrides().arguments.isEmpty)
        #expect(ScenarioOverrides().apply(to: base) == base)
    }

    /// The model overrides the shrinker uses: clients on the board, accounts, model workloads only.
    @Test func modelOverridesApplyAndSpellThemselvesBack() throws {
        let base = try BuiltinScenarios.load("sales-team")
        let o = ScenarioOverrides(clients: 2, boardClients: 0, accounts: 1, modelOnly: true)
        let s = o.apply(to: base)
        #expect(s.model == ModelSpec(boardClients: 0, accounts: 1))
        for action in ActionMix.Action.allCases {
            #expect(s.mix[action] == (action.isModel ? base.mix[action] : 0), "\(action)")
        }
        #expect(o.arguments == ["--clients", "2", "--board", "0", "--accounts", "1", "--model-only"])
        // A scenario without a model section is left alone.
        let notes = try BuiltinScenarios.load("convergence-smoke")
        #expect(ScenarioOverrides(boardClients: 1, modelOnly: true).apply(to: notes) == notes)
    }

    @Test func fewerClientsThanDocumentsClampsDocuments() throws {
        let s = ScenarioOverrides(clients: 1).apply(to: try BuiltinScenarios.load("flaky-network"))
        #expect(s.clients == 1 && s.documents == 1)
    }
}
