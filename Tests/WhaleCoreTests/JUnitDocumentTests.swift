import Testing
import WhaleCore

/// The one JUnit writer: counts derived from the cases, each outcome's element, times, escaping.
@Suite struct JUnitDocumentTests {
    func document() -> JUnitDocument {
        JUnitDocument(
            name: "whalesim <x>", time: 1.5,
            suites: [
                .init(
                    name: "a", time: 0.25, timestamp: JUnitDocument.timestamp(iso8601: "2026-11-28T10:00:00Z"),
                    properties: [("seed", "7")],
                    cases: [
                        .init(classname: "a.c", name: "passes", time: 0.0004, outcome: .passed),
                        .init(
                            classname: "a.c", name: "fails",
                            outcome: .failed(message: "m & m", type: "invalid", text: "line 1\nline 2")),
                    ], systemOut: "replay: whalesim simulate x --seed 7"),
                .init(
                    name: "b",
                    cases: [
                        .init(classname: "b.c", name: "skips", time: 12.3456, outcome: .skipped(message: "why")),
                        .init(
                            classname: "b.c", name: "skips with text",
                            outcome: .skipped(message: "expected", text: "refused"), systemOut: "note"),
                    ]),
            ])
    }

    @Test func countsComeFromTheCases() {
        let xml = document().render()
        #expect(
            xml.hasPrefix(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"whalesim &lt;x&gt;\" tests=\"4\" failures=\"1\" errors=\"0\" time=\"1.500\">\n"
            ))
        #expect(
            xml.contains(
                "<testsuite name=\"a\" tests=\"2\" failures=\"1\" errors=\"0\" skipped=\"0\" time=\"0.250\" timestamp=\"2026-11-28T10:00:00\">"
            ))
        #expect(xml.contains("<testsuite name=\"b\" tests=\"2\" failures=\"0\" errors=\"0\" skipped=\"2\" time=\"0\">"))
        #expect(xml.hasSuffix("</testsuites>\n"))
    }

    @Test func eachOutcomeHasItsElement() {
        let xml = document().render()
        #expect(xml.contains("<testcase classname=\"a.c\" name=\"passes\" time=\"0.000\">\n    </testcase>"))
        #expect(xml.contains("<failure message=\"m &amp; m\" type=\"invalid\">line 1\nline 2</failure>"))
        #expect(
            xml.contains(
                "<testcase classname=\"b.c\" name=\"skips\" time=\"12.346\">\n      <skipped message=\"why\"/>\n    </testcase>"
            ))
        #expect(
            xml.contains(
                "<skipped message=\"expected\">refused</skipped>\n      <system-out>note</system-out>\n    </testcase>")
        )
        #expect(xml.contains("<properties>\n      <property name=\"seed\" value=\"7\"/>\n    </properties>"))
        #expect(xml.contains("    <system-out>replay: whalesim simulate x --seed 7</system-out>\n  </testsuite>"))
        // A suite without properties writes no <properties> element (the schema wants at least one property in it).
        #expect(xml.ranges(of: "<properties>").count == 1)
    }
}
