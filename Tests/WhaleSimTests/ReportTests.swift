import Foundation
import Testing
import WhaleProtocol
@testable import WhaleSim

@Suite struct ReportTests {
    @Test func runRecordHasItsVersionedSchema() throws {
        let scenario = try BuiltinScenarios.load("convergence-smoke")
        let result = Simulation.run(scenario, seed: 3)
        let record = RunRecord(
            result: result, scenarioRef: "convergence-smoke", overrides: ScenarioOverrides(ops: 50), shrunk: nil)
        let object = try #require(try JSONSerialization.jsonObject(with: record.json()) as? [String: Any])
        #expect(object["schemaVersion"] as? Int == 3)
        #expect(object["timeUnit"] as? String == "ticks")
        let documents = try #require(object["documents"] as? [[String: Any]])
        #expect(documents.count == 1)
        #expect(documents.first?["name"] as? String == "note-00")
        #expect(documents.first?["clients"] as? [String] == ["c00", "c01", "c02"])
        #expect(object["whalesimVersion"] as? String == WhaleSimVersion.current)
        #expect(object["scenario"] as? String == "convergence-smoke")
        #expect(object["seed"] as? Int == 3)
        #expect(object["historyHash"] as? String == result.history.hash)
        #expect(object["replayCommand"] as? String == "whalesim simulate convergence-smoke --seed 3 --ops 50")
        #expect((object["verdicts"] as? [[String: Any]])?.count == 5)
        #expect(object["verdict"] as? String == "valid")
        #expect((object["options"] as? [String: Any])?["clients"] as? Int == 3)
    }

    @Test func historyLinesAreJSONObjectsInOrder() throws {
        let result = Simulation.run(try BuiltinScenarios.load("unicode"), seed: 2)
        let lines = result.history.jsonLines().split(separator: "\n")
        #expect(lines.count == result.history.entries.count)
        var lastTime = -1
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let t = try #require(object["t"] as? Int)
            #expect(t >= lastTime)
            lastTime = t
            #expect(object["type"] is String)
        }
        #expect(lines.last?.contains("\"type\":\"clientFinal\"") == true)
    }

    @Test func faultListingPutsNamesFirst() {
        let lines = FaultCatalog.listing
        #expect(lines.count == Fault.allCases.count)
        #expect(lines[0].hasPrefix("client-tie-priority  client gives the server op tie priority"))
    }
}
