import Testing
import WhaleProtocol
@testable import WhaleSim

/// Every fault of the catalog is caught by a checker within 50 seeds of the scenario that
/// exercises it, and the shrinker reduces the failure to a small reproducer that replays.
@Suite struct FaultCatalogTests {
    struct Case: Sendable, CustomStringConvertible {
        var fault: Fault
        var scenario: String
        /// Checkers any one of which may be the first to catch it.
        var caughtBy: Set<CheckerName>
        var maxClients: Int
        var maxOps: Int
        var description: String { fault.rawValue }
    }

    static let cases: [Case] = [
        Case(
            fault: .clientTiePriority, scenario: "same-position-storm", caughtBy: [.convergence], maxClients: 3,
            maxOps: 10),
        // The server refuses the miscounted op as not fitting its copy: a divergence caught while it
        // happens (convergence), and the edit is lost (intention).
        Case(
            fault: .utf8LengthUnits, scenario: "unicode", caughtBy: [.intention, .convergence], maxClients: 3,
            maxOps: 10),
        Case(
            fault: .graphemeLengthUnits, scenario: "unicode", caughtBy: [.intention, .convergence], maxClients: 3,
            maxOps: 10),
        Case(
            fault: .composeSignError, scenario: "convergence-smoke", caughtBy: [.intention, .convergence],
            maxClients: 3, maxOps: 10),
        Case(
            fault: .reconnectDropsUnacked, scenario: "flaky-network", caughtBy: [.intention], maxClients: 3, maxOps: 10),
        // Needs a full link queue: it shrinks once the shrinker lowers the bound (--queue-bound 2).
        // Caught as a mid-run divergence (the client that missed an op finds the next one does not
        // fit), it shrinks to 2 clients and 20 ops: a dropped message needs a queue that fills.
        Case(
            fault: .serverDropsSlowClient, scenario: "flaky-network", caughtBy: [.intention, .liveness, .convergence],
            maxClients: 3, maxOps: 20),
        Case(
            fault: .serverAppliesResendTwice, scenario: "flaky-network", caughtBy: [.intention, .convergence],
            maxClients: 3, maxOps: 10),
        Case(
            fault: .remoteCursorWrongRule, scenario: "convergence-smoke", caughtBy: [.cursors], maxClients: 3,
            maxOps: 10),
        Case(
            fault: .revisionResetOnEmpty, scenario: "flaky-network", caughtBy: [.convergence, .intention, .revisions],
            maxClients: 3, maxOps: 10),
        // The model faults: a refetch race shows as a board that differs from the server's; the
        // echo storm never goes quiet (liveness), its clients still waiting (model: unknown).
        Case(fault: .staleRefetchOverwrites, scenario: "sales-team", caughtBy: [.model], maxClients: 3, maxOps: 10),
        Case(fault: .echoStorm, scenario: "sales-team", caughtBy: [.liveness, .model], maxClients: 3, maxOps: 10),
        // The server refuses an op transformed over a concurrent non-ASCII insert; its author
        // resynchronizes and the edit is gone.
        Case(
            fault: .utf8LengthTransform, scenario: "unicode", caughtBy: [.intention, .convergence, .liveness],
            maxClients: 3, maxOps: 10),
        // Acknowledged but not durable: a power loss takes it, the restarted server is behind
        // its clients' acknowledged revisions.
        Case(
            fault: .ackBeforeDurable, scenario: "power-loss", caughtBy: [.intention, .revisions, .convergence],
            maxClients: 3, maxOps: 10),
    ]

    /// Faults only the live server has (token, size and rate checks, authorization, pools shared
    /// by one user's sockets): no simulation can exercise them, and `whalesim conform`'s edge cases
    /// catch them instead (WhaleConformTests' ConformEdgeCaseTests).
    static let liveServerOnly: [Fault] = [
        .tokenExpiryLeewayDay, .refreshTokenReuse, .revisionPastHeadAccepted, .sizeLimitOffByOne, .rateLimitOffByOne,
        .noteIdPrefixMatch, .rejoinLosesUpdate,
    ]

    @Test func everyCatalogFaultHasACaseOrIsListedAsLiveServerOnly() {
        let simulated = Set(Self.cases.map(\.fault))
        #expect(simulated.isDisjoint(with: Self.liveServerOnly))
        #expect(simulated.union(Self.liveServerOnly) == Set(Fault.allCases))
        for fault in Fault.allCases {
            #expect((Scenario.liveServerOnly(fault) != nil) == Self.liveServerOnly.contains(fault), "\(fault)")
        }
    }

    /// What `simulate --fault` and `--list-faults` say of a fault only the live server has.
    @Test func liveServerOnlyFaultsSayWhyNoScenarioExercisesThem() throws {
        for fault in Self.liveServerOnly {
            #expect(!fault.isClientSide, "\(fault)")
            #expect(FaultCatalog.scenarios(exercising: fault).isEmpty, "\(fault)")
            let reason = try #require(Scenario.liveServerOnly(fault))
            #expect(reason.contains("conform: "), "\(fault): \(reason)")
            for name in BuiltinScenarios.names {
                let scenario = try BuiltinScenarios.load(name)
                #expect(scenario.cannotExercise(fault) == "\(name) is simulated: \(reason)")
            }
            let line = try #require(FaultCatalog.listing.first { $0.hasPrefix(fault.rawValue + "  ") })
            #expect(line.hasSuffix("(live server only: whalesim serve --fault, caught by whalesim conform)"), "\(line)")
        }
        #expect(
            try BuiltinScenarios.load("convergence-smoke").cannotExercise(.tokenExpiryLeewayDay)
                == "convergence-smoke is simulated: the simulator has no access tokens; only the live server checks them (conform: security.token-expired-just-now)"
        )
    }

    @Test func eachCaseScenarioCanExerciseItsFault() throws {
        for c in Self.cases {
            let scenario = try BuiltinScenarios.load(c.scenario)
            #expect(scenario.cannotExercise(c.fault) == nil, "\(c.fault) in \(c.scenario)")
            #expect(FaultCatalog.scenarios(exercising: c.fault).contains(c.scenario))
        }
    }

    /// What `simulate --fault` says (and exits 3 on) when the scenario cannot exercise the fault.
    @Test func scenariosThatCannotExerciseAFaultSayWhy() throws {
        let smoke = try BuiltinScenarios.load("convergence-smoke")
        #expect(
            smoke.cannotExercise(.reconnectDropsUnacked)
                == "convergence-smoke has no reconnects (no disconnect or server-restart nemesis, no reconnect action)")
        #expect(smoke.cannotExercise(.serverAppliesResendTwice) != nil)
        #expect(
            smoke.cannotExercise(.revisionResetOnEmpty)
                == "convergence-smoke never has every client leave a document (no disconnect nemesis, no reconnect action)"
        )
        #expect(
            smoke.cannotExercise(.utf8LengthUnits)
                == "convergence-smoke types only ASCII, where UTF-8 bytes and scalars count the same")
        #expect(smoke.cannotExercise(.serverDropsSlowClient) != nil)
        #expect(smoke.cannotExercise(.clientTiePriority) == nil)
        #expect(
            smoke.cannotExercise(.ackBeforeDurable)
                == "convergence-smoke has no power-loss nemesis or step (only a power loss takes what was acknowledged but not yet durable)"
        )
        #expect(try BuiltinScenarios.load("server-restart").cannotExercise(.ackBeforeDurable) != nil)
        #expect(FaultCatalog.scenarios(exercising: .ackBeforeDurable) == ["power-loss"])
        var single = smoke
        single.clients = 1
        #expect(
            single.cannotExercise(.clientTiePriority)
                == "convergence-smoke has no document shared by two clients, so no concurrent inserts")
        var original = try BuiltinScenarios.load("flaky-network")
        original.protocolVersion = 1
        #expect(
            original.cannotExercise(.remoteCursorWrongRule)
                == "flaky-network speaks the original protocol, which has no remote cursors")
        #expect(
            FaultCatalog.listing.first?.hasSuffix(
                "(exercised by: convergence-smoke, flaky-network, large-notes, live-demo, power-loss, sales-team, same-position-storm, scripted-resend, server-restart, soak, unicode)"
            ) == true,
            "\(FaultCatalog.listing.first ?? "")")
    }

    @Test(arguments: cases)
    func caughtAndShrunk(_ c: Case) throws {
        let base = try BuiltinScenarios.load(c.scenario)
        let overrides = ScenarioOverrides(faults: [c.fault])
        let scenario = overrides.apply(to: base)
        var found: (seed: UInt64, checker: CheckerName)?
        for seed: UInt64 in 1...50 {
            if let checker = Simulation.run(scenario, seed: seed).firstInvalid {
                found = (seed, checker)
                break
            }
        }
        let failure = try #require(found, "\(c.fault) was not caught within 50 seeds of \(c.scenario)")
        #expect(c.caughtBy.contains(failure.checker), "\(c.fault) caught by \(failure.checker)")

        let shrunk = Shrinker.shrink(scenario: base, overrides: overrides, seed: failure.seed, checker: failure.checker)
        let small = shrunk.result.scenario
        #expect(small.clients <= c.maxClients, "\(shrunk.replayCommand(scenarioRef: c.scenario))")
        #expect(small.ops <= c.maxOps, "\(shrunk.replayCommand(scenarioRef: c.scenario))")
        #expect(small.ops < base.ops)
        #expect(small.faults == [c.fault.rawValue])
        // The printed command replays the same failing history.
        let command = shrunk.replayCommand(scenarioRef: c.scenario)
        #expect(command.hasPrefix("whalesim simulate \(c.scenario) --seed \(shrunk.seed)"))
        #expect(command.contains("--fault \(c.fault.rawValue)"))
        let replay = Simulation.run(shrunk.overrides.apply(to: base), seed: shrunk.seed)
        #expect(replay.history.hash == shrunk.result.history.hash)
        #expect(replay.results.contains { $0.checker == failure.checker && $0.verdict == .invalid })
    }
}
