import Testing
import WhaleProtocol
@testable import WhaleSim

@Suite struct ScenarioOverridesTests {
    @Test func overridesApplyAndSpellThemselvesBack() throws {
        let base = try BuiltinScenarios.load("flaky-network")
        let o = ScenarioOverrides(clients: 2, documents: 1, ops: 7, delayMax: 5, queueBound: 3,
                                  withoutNemeses: [.partition, .disconnect], faults: [.serverDropsSlowClient, .clientTiePriority])
        let s = o.apply(to: base)
        #expect(s.clients == 2 && s.documents == 1 && s.ops == 7 && s.queueBound == 3)
        #expect(s.delay.maximum == 5)
        #expect(s.nemeses.map(\.kind) == [.slowClient])
        #expect(s.faults == ["server-drops-slow-client", "client-tie-priority"])
        #expect(o.arguments == ["--clients", "2", "--documents", "1", "--ops", "7", "--delay-max", "5", "--queue-bound", "3",
                                "--without-nemesis", "disconnect", "--without-nemesis", "partition",
                                "--fault", "client-tie-priority", "--fault", "server-drops-slow-client"])
        #expect(ScenarioOverrides().arguments.isEmpty)
        #expect(ScenarioOverrides().apply(to: base) == base)
    }

    @Test func fewerClientsThanDocumentsClampsDocuments() throws {
        let s = ScenarioOverrides(clients: 1).apply(to: try BuiltinScenarios.load("flaky-network"))
        #expect(s.clients == 1 && s.documents == 1)
    }
}
