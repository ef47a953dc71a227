import Testing
@testable import WhaleSim

/// With no fault switched on, every built-in scenario passes every checker, over a fixed set
/// of seeds, in both protocol versions.
@Suite struct BuiltinScenarioTests {
    static let seeds: ClosedRange<UInt64> = 1...12

    @Test(arguments: BuiltinScenarios.names)
    func passesWithoutFaults(_ name: String) throws {
        let scenario = try BuiltinScenarios.load(name)
        for seed in Self.seeds {
            let result = Simulation.run(scenario, seed: seed)
            #expect(result.verdict == .valid, "\(name) seed \(seed): \(result.results.filter { $0.verdict != .valid })")
            #expect(result.breachedThresholds.isEmpty)
            #expect(result.counts.edits >= scenario.ops)
        }
    }

    @Test(arguments: BuiltinScenarios.names)
    func passesWithTheOriginalProtocol(_ name: String) throws {
        var scenario = try BuiltinScenarios.load(name)
        scenario.protocolVersion = 1
        for seed in Self.seeds {
            let result = Simulation.run(scenario, seed: seed)
            #expect(
                result.verdict == .valid,
                "\(name) protocol 1 seed \(seed): \(result.results.filter { $0.verdict != .valid })")
        }
    }

    @Test func nemesesReallyHappen() throws {
        let flaky = Simulation.run(try BuiltinScenarios.load("flaky-network"), seed: 1)
        #expect(flaky.counts.disconnects > 0 && flaky.counts.dropped > 0)
        let partitions = (1...5).map { Simulation.run(try! BuiltinScenarios.load("flaky-network"), seed: UInt64($0)) }
            .filter { run in
                run.history.entries.contains {
                    if case .note(let t) = $0.event { t.hasPrefix("partition cuts off") } else { false }
                }
            }
        #expect(!partitions.isEmpty)
        let restart = Simulation.run(try BuiltinScenarios.load("server-restart"), seed: 1)
        #expect(restart.counts.serverRestarts > 0)
    }

    @Test func unicodeScenarioTypesMultiScalarCharacters() throws {
        let result = Simulation.run(try BuiltinScenarios.load("unicode"), seed: 1)
        let inserted = result.history.entries.compactMap { e -> String? in
            if case .edit(_, _, _, let text) = e.event { return text } else { return nil }
        }.joined()
        #expect(inserted.unicodeScalars.contains { $0.value > 0xFFFF })  // astral emoji
        #expect(inserted.unicodeScalars.contains { $0 == "\u{301}" })  // combining mark
        #expect(inserted.unicodeScalars.contains { (0x4E00...0x9FFF).contains($0.value) })  // CJK
    }

    /// large-notes really works a large note: tens of thousands of scalars, pastes of thousands,
    /// and consecutive edits of a client far apart (long gap moves in `TextDocument`).
    @Test func largeNotesScenarioEditsFarApartInALargeNote() throws {
        let scenario = try BuiltinScenarios.load("large-notes")
        #expect(scenario.initialText.unicodeScalars.count == 40_000)
        let result = Simulation.run(scenario, seed: scenario.seed)
        #expect(result.verdict == .valid, "\(result.results.filter { $0.verdict != .valid })")
        var lastPosition: [Int: Int] = [:]
        var farMoves = 0, biggestPaste = 0
        for entry in result.history.entries {
            guard case .edit(let c, let position, _, let text) = entry.event else { continue }
            biggestPaste = max(biggestPaste, text.unicodeScalars.count)
            if let last = lastPosition[c], abs(position - last) > 10_000 { farMoves += 1 }
            lastPosition[c] = position
        }
        #expect(biggestPaste >= 1_000)
        #expect(farMoves >= 10, "\(farMoves) edits more than 10,000 scalars from the previous one")
    }
}
