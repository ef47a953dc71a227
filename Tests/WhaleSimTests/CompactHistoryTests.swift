import Foundation
import Testing
import WhaleRecord
import WhalesimTesting
@testable import WhaleSim

/// Simulator histories through the compact history file (`history.whr`) come back as exactly
/// the lines `jsonLines()` writes, byte for byte, and decode to the same events.
@Suite struct CompactHistoryTests {
    @Test(arguments: [
        ("convergence-smoke", 1), ("convergence-smoke", 7), ("unicode", 2), ("flaky-network", 3),
        ("server-restart", 4), ("same-position-storm", 5), ("sales-team", 6), ("large-notes", 1),
    ])
    func compactHistoryGivesBackTheJSONLines(_ name: String, _ seed: UInt64) throws {
        let result = Simulation.run(try BuiltinScenarios.load(name), seed: seed)
        let dir = try ExternalProcess.temporaryDirectory("compact-\(name)")
        let path = dir.appendingPathComponent(HistoryFiles.compactName).path
        let writer = try HistoryFileWriter(path: path)
        try result.history.forEachJSONLine { try writer.append($0) }
        try writer.finish()

        var text = ""
        try HistoryFiles.forEachLine(path) { text += String(decoding: $0, as: UTF8.self) + "\n" }
        let jsonl = result.history.jsonLines()
        #expect(text == jsonl)
        let size = try Data(contentsOf: URL(fileURLWithPath: path)).count
        #expect(size * 5 < jsonl.utf8.count, "\(name): \(size) bytes for \(jsonl.utf8.count) of JSON lines")

        // The merge's and the reproducer's reader takes the lines as they come.
        var number = 0
        try HistoryFiles.forEachLine(path) { line in
            number += 1
            _ = try History.decodeJSONLine(Data(line), source: path, number: number)
        }
        #expect(number == result.history.entries.count)
    }
}
