import Testing
@testable import WhaleSim

/// `text.initial-size`, `text.paste-min` / `paste-max` and the `jump` action, and what bad
/// values of them get.
@Suite struct ScenarioLargeTextTests {
    func problems(_ yaml: String) -> [String] {
        do {
            _ = try Scenario.decode(yaml: yaml, source: "test.yml")
            return []
        } catch {
            return error.problems
        }
    }

    @Test func initialSizePadsTheTextAndPasteSizeIsARange() throws {
        let s = try Scenario.decode(
            yaml: """
                name: t
                text: {initial: "Notes\\n", initial-size: 1000, paste-min: 100, paste-max: 200}
                mix: {jump: 1, paste: 1}
                """, source: "t")
        #expect(s.initialText.unicodeScalars.count == 1000 && s.initialText.hasPrefix("Notes\nLine 00001: "))
        #expect(s.pasteSize == 100...200 && s.mix[.jump] == 1)
        // Shorter than the given text: cut to the size; deterministic either way.
        #expect(Scenario.padded("abcdef", toScalars: 3) == "abc")
        #expect(Scenario.padded("", toScalars: 500) == Scenario.padded("", toScalars: 500))
    }

    @Test func badValuesAreReportedTogether() {
        let found = problems(
            """
            name: t
            text: {initial-size: -1, paste-min: 50, paste-max: 10}
            mix: {jump: x}
            """)
        #expect(found.contains { $0.hasPrefix("text.initial-size") }, "\(found)")
        #expect(found.contains("text.paste-max: 10 is below text.paste-min 50"), "\(found)")
        #expect(found.contains { $0.hasPrefix("mix.jump") }, "\(found)")
    }
}
