import Foundation
import Testing
import WhaleProtocol
@testable import WhaleSim

/// Catalog faults with windows: the `faults:` forms, their strict decoding, the intervals they
/// expand to, and the simulator switching a fault on and off at those ticks.
@Suite struct FaultWindowTests {
    func problems(_ yaml: String) -> [String] {
        do {
            _ = try Scenario.decode(yaml: yaml, source: "test.yml")
            return []
        } catch {
            return error.problems
        }
    }

    func scenario(_ base: String, windows: [FaultWindowSpec]) throws -> Scenario {
        var s = try BuiltinScenarios.load(base)
        s.faultWindows = windows
        return s
    }

    /// The "fault X on/off" notes of a run, as "tick text".
    func faultNotes(_ result: SimulationResult) -> [String] {
        result.history.entries.compactMap { e in
            if case .note(let text) = e.event, text.hasPrefix("fault ") { return "\(e.time) \(text)" }
            return nil
        }
    }

    // MARK: decoding

    @Test func bothFormsAndPlainNamesDecode() throws {
        let s = try Scenario.decode(
            yaml: """
                name: t
                faults:
                  - client-tie-priority
                  - {name: server-applies-resend-twice, at: [2000, 9000], duration: 3000}
                  - {name: remote-cursor-wrong-rule, every: 4000, duration: 1000}
                  - {name: server-applies-resend-twice, every: 500, duration: 20}
                """, source: "t")
        #expect(
            s.faultWindows == [
                FaultWindowSpec(name: "client-tie-priority"),
                FaultWindowSpec(name: "server-applies-resend-twice", at: [2000, 9000], duration: 3000),
                FaultWindowSpec(name: "remote-cursor-wrong-rule", every: 4000, duration: 1000),
                FaultWindowSpec(name: "server-applies-resend-twice", every: 500, duration: 20),
            ])
        #expect(s.faults == ["client-tie-priority", "server-applies-resend-twice", "remote-cursor-wrong-rule"])
        #expect(
            s.faultWindows.map(\.description) == [
                "client-tie-priority", "server-applies-resend-twice at [2000, 9000] for 3000",
                "remote-cursor-wrong-rule every 4000 for 1000", "server-applies-resend-twice every 500 for 20",
            ])
        #expect(s.faultWindows[0].isWholeRun && !s.faultWindows[1].isWholeRun)
        // The flow form of plain names still decodes as before.
        #expect(
            try Scenario.decode(yaml: "name: t\nfaults: [echo-storm]", source: "t").faultWindows == [
                .wholeRun("echo-storm")
            ])
    }

    @Test func everyBadWindowIsReportedAtOnce() {
        let found = problems(
            """
            name: t
            faults:
              - no-such-fault
              - {name: client-tie-priority, at: [10], duration: 5, extra: 1}
              - {name: client-tie-priority, at: [10]}
              - {name: client-tie-priority, at: [10], every: 50, duration: 5}
              - {name: client-tie-priority, duration: 5}
              - {name: nope, every: 50, duration: 5}
              - {at: [1], duration: 5}
              - {name: client-tie-priority, at: [], duration: 5}
              - {name: client-tie-priority, at: [-1, x], duration: 0}
              - {name: client-tie-priority, every: 0, duration: "5"}
              - [client-tie-priority]
              - 42
            """)
        #expect(
            found == [
                #"faults[0]: unknown fault "no-such-fault" (see whalesim simulate --list-faults)"#,
                "faults[1].extra: unknown key (allowed: name, at, every, duration)",
                "faults[2].duration: missing (ticks the fault stays on in each window)",
                "faults[3]: give `at` or `every`, not both",
                "faults[4]: needs `at` (a list of ticks) or `every` (mean ticks between windows); a plain name is on for the whole run",
                #"faults[5].name: unknown fault "nope" (see whalesim simulate --list-faults)"#,
                "faults[6].name: missing (a fault from the catalog)",
                "faults[7].at: empty (give at least one tick)",
                "faults[8].at[0]: -1 is out of range 0...1000000000",
                #"faults[8].at[1]: expected an integer, got "x""#,
                "faults[8].duration: 0 is out of range 1...1000000000",
                "faults[9].every: 0 is out of range 1...1000000000",
                #"faults[9].duration: expected an integer, got "5""#,
                "faults[10]: expected a fault name or {name: F, at: [ticks] or every: N, duration: D}, got a list",
                "faults[11]: expected a fault name or {name: F, at: [ticks] or every: N, duration: D}, got 42",
            ], "\(found.joined(separator: "\n"))")
    }

    @Test func namesStayTheFaultsAndSettingThemKeepsWindows() {
        var s = Scenario(name: "t")
        s.faultWindows = [FaultWindowSpec(name: "echo-storm", at: [5], duration: 5), .wholeRun("client-tie-priority")]
        #expect(s.faults == ["echo-storm", "client-tie-priority"])
        s.faults.append("compose-sign-error")
        #expect(
            s.faultWindows == [
                FaultWindowSpec(name: "echo-storm", at: [5], duration: 5), .wholeRun("client-tie-priority"),
                .wholeRun("compose-sign-error"),
            ])
        s.faults.removeAll { $0 == "client-tie-priority" }
        #expect(
            s.faultWindows == [
                FaultWindowSpec(name: "echo-storm", at: [5], duration: 5), .wholeRun("compose-sign-error"),
            ])
        // `--fault F` switches F on for the whole run, replacing its windows.
        let overridden = ScenarioOverrides(faults: [.echoStorm]).apply(to: s)
        #expect(overridden.faultWindows == [.wholeRun("compose-sign-error"), .wholeRun("echo-storm")])
        #expect(ScenarioOverrides(faults: [.composeSignError]).apply(to: s) == s)
    }

    // MARK: intervals

    @Test func fixedWindowsExpandClipAndMerge() {
        let random = SimRandom(seed: 1)
        let windows = [
            FaultWindowSpec(name: "echo-storm", at: [30, 10, 12, 95], duration: 5),
            FaultWindowSpec(name: "client-tie-priority", at: [15], duration: 5),
            FaultWindowSpec(name: "echo-storm", at: [35], duration: 1),
        ]
        #expect(
            FaultWindowSpec.intervals(windows, runLength: 100, random: random) == [
                FaultInterval(name: "echo-storm", start: 10, end: 17),
                FaultInterval(name: "client-tie-priority", start: 15, end: 20),
                FaultInterval(name: "echo-storm", start: 30, end: 36),
                FaultInterval(name: "echo-storm", start: 95, end: 100),
            ])
        #expect(
            FaultInterval.switches(FaultWindowSpec.intervals(windows, runLength: 100, random: random)).map {
                "\($0.tick) \($0)"
            } == [
                "10 fault echo-storm on", "15 fault client-tie-priority on", "17 fault echo-storm off",
                "20 fault client-tie-priority off",
                "30 fault echo-storm on", "36 fault echo-storm off", "95 fault echo-storm on",
                "100 fault echo-storm off",
            ])
        #expect(
            FaultWindowSpec.intervals([.wholeRun("echo-storm")], runLength: 100, random: random) == [
                FaultInterval(name: "echo-storm", start: 0, end: 100)
            ])
        #expect(
            FaultWindowSpec.intervals(
                [FaultWindowSpec(name: "echo-storm", at: [100], duration: 5)], runLength: 100, random: random
            ).isEmpty)
    }

    @Test func periodicWindowsAreSeededAndIndependent() {
        let periodic = FaultWindowSpec(name: "echo-storm", every: 400, duration: 50)
        let a = FaultWindowSpec.intervals([periodic], runLength: 100_000, random: SimRandom(seed: 7))
        #expect(a == FaultWindowSpec.intervals([periodic], runLength: 100_000, random: SimRandom(seed: 7)))
        #expect(a != FaultWindowSpec.intervals([periodic], runLength: 100_000, random: SimRandom(seed: 8)))
        // About one window per `every` ticks (overlapping ones merge), each at least `duration` long.
        #expect((150...260).contains(a.count), "\(a.count)")
        #expect(a.allSatisfy { $0.start >= 1 && $0.end - $0.start >= 50 && $0.end <= 100_000 })
        #expect(zip(a, a.dropFirst()).allSatisfy { $0.end < $1.start })
        // Another fault's window does not move these.
        let both = FaultWindowSpec.intervals(
            [FaultWindowSpec(name: "client-tie-priority", every: 300, duration: 10), periodic],
            runLength: 100_000, random: SimRandom(seed: 7))
        #expect(both.filter { $0.name == "echo-storm" } == a)
        // The scenario's intervals are the simulator's: the run's seed, the fault-window stream.
        var s = Scenario(name: "t")
        s.faultWindows = [periodic]
        #expect(
            s.faultIntervals(seed: 7, runLength: 100_000)
                == FaultWindowSpec.intervals(
                    [periodic], runLength: 100_000, random: SimRandom(seed: 7).derive(Scenario.faultWindowStream)))
    }

    // MARK: the simulator

    /// A window that closes before the first op changes nothing but the two notes.
    @Test func aWindowClosedBeforeAnyOpChangesNothing() throws {
        let plain = try BuiltinScenarios.load("same-position-storm")
        let early = try scenario(
            "same-position-storm", windows: [FaultWindowSpec(name: "client-tie-priority", at: [0], duration: 1)])
        let whole = ScenarioOverrides(faults: [.clientTiePriority]).apply(to: plain)
        var wholeCaught = false
        for seed: UInt64 in 1...8 {
            let windowed = Simulation.run(early, seed: seed)
            #expect(windowed.verdict == .valid, "seed \(seed)")
            #expect(faultNotes(windowed) == ["0 fault client-tie-priority on", "1 fault client-tie-priority off"])
            let withoutNotes = windowed.history.entries.filter { e in
                if case .note(let text) = e.event { return !text.hasPrefix("fault ") } else { return true }
            }
            #expect(withoutNotes == Simulation.run(plain, seed: seed).history.entries, "seed \(seed)")
            if Simulation.run(whole, seed: seed).firstInvalid != nil { wholeCaught = true }
        }
        #expect(wholeCaught, "the same fault for the whole run is caught in these seeds")
    }

    @Test(arguments: [
        (Fault.clientTiePriority, "same-position-storm"),
        (Fault.serverAppliesResendTwice, "flaky-network"),
    ])
    func aWindowCoveringTheWorkloadIsCaught(_ fault: Fault, _ base: String) throws {
        let s = try scenario(base, windows: [FaultWindowSpec(name: fault.rawValue, at: [0], duration: 1_000_000)])
        let caught = (UInt64(1)...10).first { Simulation.run(s, seed: $0).firstInvalid != nil }
        #expect(caught != nil, "\(fault) in a window over the workload of \(base) not caught in 10 seeds")
    }

    @Test func periodicWindowsSwitchOnAndOffAndEndAtHeal() throws {
        let s = try scenario(
            "flaky-network", windows: [FaultWindowSpec(name: "server-applies-resend-twice", every: 300, duration: 100)])
        let result = Simulation.run(s, seed: 3)
        let notes = faultNotes(result)
        #expect(notes.count >= 4)
        // Strictly alternating on/off, starting with on, ending off.
        for (i, note) in notes.enumerated() { #expect(note.hasSuffix(i % 2 == 0 ? " on" : " off"), "\(notes)") }
        #expect(notes.count % 2 == 0)
        // Nothing is switched after the heal.
        let healAt = try #require(
            result.history.entries.first { if case .heal = $0.event { true } else { false } }?.time)
        #expect(
            result.history.entries.allSatisfy { e in
                if case .note(let text) = e.event, text.hasPrefix("fault "), e.time > healAt {
                    return false
                } else {
                    return true
                }
            })
        // Before the heal, exactly the schedule a live runner gets from the scenario and seed.
        let planned = FaultInterval.switches(s.faultIntervals(seed: 3, runLength: s.safetyTicks + 1)).filter {
            $0.tick < healAt
        }
        #expect(notes.filter { Int($0.prefix { $0 != " " })! < healAt } == planned.map { "\($0.tick) \($0)" })
        // The same run again: the same history.
        #expect(Simulation.run(s, seed: 3).history.hash == result.history.hash)
    }

    // MARK: existing runs

    /// Hashes of every built-in scenario (seed 3), plain and with each fault it can exercise
    /// for the whole run, recorded before fault windows existed: whole-run faults behave as before.
    /// Re-recorded once since, when an op's broadcast began to carry its author's cursor (fewer
    /// messages, so other histories). Verdicts stayed the same but for two seed-dependent finds:
    /// seed 3 now misses unicode + compose-sign-error and now finds large-notes +
    /// client-tie-priority; over seeds 1–20 they are found 11 and 16 times (8 and 14 before).
    /// Re-recorded for five faulted runs when a client whose copy stopped fitting the server's
    /// ops began to record a `diverged` error instead of a plain client one (same events otherwise).
    static let baseline: [(scenario: String, fault: String?, hash: String)] = [
        ("convergence-smoke", nil, "7811a3e0a7dcd46d"),
        ("convergence-smoke", "client-tie-priority", "8125de4eabad44a5"),
        ("convergence-smoke", "compose-sign-error", "7811a3e0a7dcd46d"),
        ("convergence-smoke", "remote-cursor-wrong-rule", "f0a2300719a0a915"),
        ("flaky-network", nil, "6ad8e5a4e897d6e5"),
        ("flaky-network", "client-tie-priority", "8c7523b9df199c5a"),
        ("flaky-network", "compose-sign-error", "f6b24719892115bd"),
        ("flaky-network", "reconnect-drops-unacked", "8b46af8281273d41"),
        ("flaky-network", "server-drops-slow-client", "6ad8e5a4e897d6e5"),
        ("flaky-network", "server-applies-resend-twice", "3097e94912c712be"),
        ("flaky-network", "remote-cursor-wrong-rule", "935cc90ab62ec556"),
        ("flaky-network", "revision-reset-on-empty", "c8909d1c1cb03a86"),
        ("large-notes", nil, "56d7f75fe08f2f36"),
        ("large-notes", "client-tie-priority", "e3f9bf61a9d66df0"),
        ("large-notes", "compose-sign-error", "56d7f75fe08f2f36"),
        ("large-notes", "remote-cursor-wrong-rule", "22ff5dc8aadc8342"),
        ("sales-team", nil, "0abdb692b0b41b78"),
        ("sales-team", "client-tie-priority", "b5667935c8320e8b"),
        ("sales-team", "compose-sign-error", "0abdb692b0b41b78"),
        ("sales-team", "reconnect-drops-unacked", "0abdb692b0b41b78"),
        ("sales-team", "revision-reset-on-empty", "0abdb692b0b41b78"),
        ("sales-team", "stale-refetch-overwrites", "0abdb692b0b41b78"),
        ("sales-team", "echo-storm", "5b2a7c7be9299c89"),
        ("same-position-storm", nil, "72ee8f8a5e5e3dfd"),
        ("same-position-storm", "client-tie-priority", "63af3df47e116ede"),
        ("same-position-storm", "compose-sign-error", "72ee8f8a5e5e3dfd"),
        ("same-position-storm", "remote-cursor-wrong-rule", "35972dd1216238d0"),
        ("server-restart", nil, "708299a5e7210885"),
        ("server-restart", "client-tie-priority", "b98d09dc0b7ea449"),
        ("server-restart", "compose-sign-error", "708299a5e7210885"),
        ("server-restart", "reconnect-drops-unacked", "fe3ad3e5054b8cb3"),
        ("server-restart", "server-applies-resend-twice", "51e2e72728526d78"),
        ("server-restart", "remote-cursor-wrong-rule", "1f023d256ee5b1c1"),
        ("server-restart", "revision-reset-on-empty", "708299a5e7210885"),
        ("unicode", nil, "b65a4503cd5a3f10"),
        ("unicode", "client-tie-priority", "40ff9b02f5f20df2"),
        ("unicode", "utf8-length-units", "b788517dfc938662"),
        ("unicode", "grapheme-length-units", "93024514711a6905"),
        ("unicode", "compose-sign-error", "b65a4503cd5a3f10"),
        ("unicode", "remote-cursor-wrong-rule", "80d205427cadce18"),
    ]

    @Test func historyHashesOfExistingScenariosAreUnchanged() throws {
        for (name, fault, hash) in Self.baseline {
            let base = try BuiltinScenarios.load(name)
            let s =
                try fault.map { ScenarioOverrides(faults: [try #require(Fault(rawValue: $0))]).apply(to: base) } ?? base
            #expect(Simulation.run(s, seed: 3).history.hash == hash, "\(name) \(fault ?? "no fault")")
        }
    }

    // MARK: shrinking

    /// The shrinker keeps the windows (they live in the scenario, not the overrides), and its
    /// replay command names the scenario file, which holds them.
    @Test func theShrinkerKeepsWindowsAndItsCommandReplays() throws {
        let yaml =
            try #require(BuiltinScenarios.texts.first { $0.name == "same-position-storm" }?.yaml)
            + "\nfaults:\n  - {name: client-tie-priority, at: [0], duration: 1000000}\n"
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "fault-window-\(ProcessInfo.processInfo.processIdentifier).yml"
        ).path
        try yaml.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let base = try BuiltinScenarios.load(path)
        #expect(base.faultWindows == [FaultWindowSpec(name: "client-tie-priority", at: [0], duration: 1_000_000)])
        let seed = try #require((UInt64(1)...10).first { Simulation.run(base, seed: $0).firstInvalid != nil })
        let failing = Simulation.run(base, seed: seed)
        let checker = try #require(failing.firstInvalid)
        let shrunk = Shrinker.shrink(scenario: base, overrides: ScenarioOverrides(), seed: seed, checker: checker)
        #expect(shrunk.result.scenario.faultWindows == base.faultWindows)
        #expect(shrunk.result.scenario.ops < base.ops)
        let command = shrunk.replayCommand(scenarioRef: path)
        #expect(command.hasPrefix("whalesim simulate \(path) --seed \(shrunk.seed)"))
        #expect(!command.contains("--fault"))
        // What the command does: load the file, apply the printed overrides, run the seed.
        let replay = Simulation.run(shrunk.overrides.apply(to: try BuiltinScenarios.load(path)), seed: shrunk.seed)
        #expect(replay.history.hash == shrunk.result.history.hash)
        #expect(replay.firstInvalid == checker)
    }
}
