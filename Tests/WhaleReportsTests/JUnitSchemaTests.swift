import Foundation
import Testing
@testable import WhaleReports

/// junit.xml validates against the common JUnit schema (Fixtures/junit.xsd, the shape of
/// Jenkins' junit-10.xsd) with xmllint (Debian's libxml2-utils, installed by scripts/setup --tests).
@Suite struct JUnitSchemaTests {
    static let xmllint = Support.which("xmllint")

    func validate(_ xml: String) throws -> Support.Output {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("junit.xml")
        try Data(xml.utf8).write(to: file)
        return try Support.execute(
            Self.xmllint!,
            ["--noout", "--schema", Support.fixtures.appendingPathComponent("junit.xsd").path, file.path], timeout: 30)
    }

    @Test(
        .enabled(if: xmllint != nil, "xmllint is not installed (scripts/setup --tests installs libxml2-utils)"),
        arguments: GoldenReportTests.runs)
    func recordedRunsValidate(name: String) throws {
        let out = try validate(JUnitXML(run: try Support.run(name)).render())
        #expect(out.status == 0, "\(out.stderr)")
        #expect(out.stderr.contains("validates"))
    }

    @Test(.enabled(if: xmllint != nil, "xmllint is not installed (scripts/setup --tests installs libxml2-utils)"))
    func unknownVerdictsAndOddTextValidate() throws {
        var record = ReportBoundsTests.record(verdict: "unknown", evidence: ["<&>\"' \u{01} ✓"])
        record.verdicts.append(
            .init(checker: "liveness", verdict: "invalid", evidence: ["no quiescence within 10 ticks"]))
        record.startedAt = "2026-11-22T18:00:00Z"
        record.wallSeconds = 1.5
        let xml = JUnitXML(run: RunDirectory(path: "/x", record: record, history: [])).render()
        #expect(xml.contains("<skipped message=\"convergence is unknown: &lt;&amp;&gt;&quot;&apos; \u{FFFD} ✓\"/>"))
        #expect(xml.contains("timestamp=\"2026-11-22T18:00:00\""))
        let out = try validate(xml)
        #expect(out.status == 0, "\(out.stderr)")
    }

    @Test(.enabled(if: xmllint != nil, "xmllint is not installed (scripts/setup --tests installs libxml2-utils)"))
    func theSchemaRejectsWhatCISystemsWouldNot() throws {
        // Proves the schema has teeth: a test case without a name and an unknown element fail.
        let bad =
            "<?xml version=\"1.0\"?>\n<testsuites><testsuite name=\"x\" tests=\"1\"><testcase classname=\"a\"><oops/></testcase></testsuite></testsuites>\n"
        let out = try validate(bad)
        #expect(out.status != 0)
    }
}
