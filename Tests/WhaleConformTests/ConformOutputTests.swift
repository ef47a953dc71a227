import Foundation
import Testing
#if canImport(FoundationXML)
    import FoundationXML
#endif
@testable import WhaleConform
import WhaleProtocol
import WhalesimTesting

/// The suite's bookkeeping without a server: selection, the expected-failure list, the exit
/// code, the junit and HTML files, and docs/conformance.md kept equal to the cases.
@Suite struct ConformOutputTests {
    func result(_ id: String, _ verdict: ConformVerdict, expected: Bool = false, suspects: [Fault] = [])
        -> ConformResult
    {
        let c = ConformSuite.cases.first { $0.id == id }!
        return ConformResult(
            id: id, category: c.category, checks: c.checks, suspects: suspects, verdict: verdict,
            expectedToFail: expected, seconds: 0.25)
    }

    @Test func caseIdsAreUniqueStableAndCoverEveryCategory() {
        let ids = ConformSuite.cases.map(\.id)
        #expect(Set(ids).count == ids.count)
        #expect(Set(ConformSuite.cases.map(\.category)) == Set(ConformCase.Category.allCases))
        for id in ids { #expect(id.allSatisfy { $0.isLowercase || $0.isNumber || $0 == "." || $0 == "-" }, "\(id)") }
        // Every server-side catalog fault is some case's suspect.
        for fault in Fault.allCases where !fault.isClientSide {
            #expect(ConformSuite.cases.contains { $0.suspects.contains(fault) }, "\(fault)")
        }
    }

    @Test func onlySelectsByGlobIdOrPrefix() {
        #expect(ConformSuite.matching(nil).count == ConformSuite.cases.count)
        #expect(ConformSuite.matching("ot").allSatisfy { $0.category == .ot })
        #expect(ConformSuite.matching("ot").count == ConformSuite.cases.filter { $0.category == .ot }.count)
        #expect(
            ConformSuite.matching("*non-ascii*").map(\.id) == [
                "ot.non-ascii-astral", "ot.non-ascii-combining-marks", "ot.non-ascii-emoji-zwj", "ot.non-ascii-crlf",
            ])
        #expect(
            ConformSuite.matching("security.token").map(\.id) == [
                "security.token-missing-or-forged", "security.token-expired", "security.token-other-organization",
                "security.token-expired-just-now",
            ])
        #expect(
            ConformSuite.matching("sessions.join-at-head,durability").map(\.id) == [
                "sessions.join-at-head", "durability.kill-between-ack-and-broadcast",
                "durability.acked-ops-survive-restart",
            ])
        #expect(ConformSuite.matching("nothing-like-this").isEmpty)
    }

    @Test func theExpectedFailureListIgnoresCommentsAndRefusesUnknownIds() throws {
        let ids = try ExpectedFailures.parse(
            "# known\not.non-ascii-astral   # utf8 bug\n\n  sessions.leave-and-rejoin\n")
        #expect(ids == ["ot.non-ascii-astral", "sessions.leave-and-rejoin"])
        #expect(throws: ConformFailure.self) { try ExpectedFailures.parse("ot.no-such-case\n") }
        do { _ = try ExpectedFailures.parse("ok\not.non-ascii-astral\n") } catch {
            #expect(error.evidence.contains("line 1: ok"))
        }
    }

    @Test func expectedFailuresPassTheRunAndAnUnexpectedPassIsCalledOut() {
        let expectedFail = result(
            "ot.non-ascii-astral", .fail(evidence: "refused"), expected: true, suspects: [.utf8LengthTransform])
        let nowPassing = result("ot.non-ascii-crlf", .pass, expected: true)
        let pass = result("ot.long-note", .pass)
        let na = result("cursors.presence-left", .notApplicable(reason: "protocol 2 only"))
        let ok = ConformSummary([expectedFail, nowPassing, pass, na])
        #expect(ok.exitCode == 0)
        #expect(ok.line.contains("1 listed as expected to fail now PASS: ot.non-ascii-crlf"))
        #expect(ConformSummary.line(for: nowPassing).contains("PASSES NOW"))
        #expect(ConformSummary.line(for: expectedFail).hasPrefix("fail (expected)  ot.non-ascii-astral"))
        #expect(ConformSummary.line(for: expectedFail).contains("catalog fault utf8-length-transform"))
        let bad = ConformSummary([pass, result("sessions.join-at-head", .fail(evidence: "revision 0"))])
        #expect(bad.exitCode == 2)
        #expect(bad.line == "conform: 2 cases, 1 pass, 1 fail, 0 not applicable")
    }

    @Test func junitHasOneTestCasePerCaseWithFailuresAndSkips() {
        let summary = ConformSummary([
            result("ot.long-note", .pass),
            result("sessions.join-at-head", .fail(evidence: "a <b> & \"c\"")),
            result("ot.non-ascii-astral", .fail(evidence: "refused"), expected: true),
            result("cursors.presence-left", .notApplicable(reason: "protocol 2 only")),
        ])
        let xml = ConformReportFiles.junit(summary)
        #expect(xml.components(separatedBy: "<testcase ").count - 1 == 4)
        #expect(xml.contains(#"<testsuites name="whalesim conform" tests="4" failures="1" errors="0""#))
        // The two skips are counted on their suites (junit-10.xsd has no `skipped` on <testsuites>).
        let skips = xml.matches(of: /<testsuite [^>]*skipped="(\d+)"/).map { Int($0.1)! }
        #expect(skips.reduce(0, +) == 2)
        #expect(xml.contains("<failure message=\"a &lt;b&gt; &amp; &quot;c&quot;\" type=\"conformance\">"))
        #expect(xml.contains(#"<skipped message="not applicable: protocol 2 only"/>"#))
        #expect(xml.contains(#"<skipped message="expected failure (--expect-fail)">refused</skipped>"#))
        // Well-formed XML.
        #expect((try? XMLDocument(xmlString: xml)) != nil)
    }

    /// The same schema check as the run's junit.xml (one writer, WhaleCore's JUnitDocument): CI
    /// systems read conform's file too. A forbidden control character in evidence stays visible.
    @Test(
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/xmllint"),
            "xmllint is not installed (scripts/setup --tests)"))
    func junitValidatesAgainstTheCommonSchema() throws {
        let summary = ConformSummary([
            result("ot.long-note", .pass, expected: true),
            result("sessions.join-at-head", .fail(evidence: "closed with \u{1B}[0m <&>")),
            result("ot.non-ascii-astral", .fail(evidence: "refused"), expected: true),
            result("cursors.presence-left", .notApplicable(reason: "protocol 2 only")),
        ])
        let xml = ConformReportFiles.junit(summary)
        #expect(xml.contains(#"closed with \u{1B}[0m &lt;&amp;&gt;"#))
        #expect(xml.contains("<system-out>listed in --expect-fail but passes now: take it off the list</system-out>"))
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("conform-junit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("junit.xml")
        try Data(xml.utf8).write(to: file)
        let schema = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("WhaleReportsTests/Fixtures/junit.xsd")
        let lint = Process()
        lint.executableURL = URL(fileURLWithPath: "/usr/bin/xmllint")
        lint.arguments = ["--noout", "--schema", schema.path, file.path]
        let errors = Pipe()
        lint.standardError = errors
        try lint.run()
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        lint.waitUntilExit()
        #expect(lint.terminationStatus == 0, "\(said)")
    }

    @Test func theReportListsFailingCasesFirst() {
        let summary = ConformSummary([
            result("ot.long-note", .pass),
            result("cursors.presence-left", .notApplicable(reason: "protocol 2 only")),
            result("ot.non-ascii-astral", .fail(evidence: "refused"), expected: true),
            result("sessions.join-at-head", .fail(evidence: "revision 0")),
        ])
        #expect(
            ConformReportFiles.ordered(summary.results).map(\.id) == [
                "sessions.join-at-head", "ot.non-ascii-astral", "ot.long-note", "cursors.presence-left",
            ])
        let html = ConformReportFiles.html(summary, target: "http://x", protocolVersion: 2)
        let failAt = html.range(of: "sessions.join-at-head")!.lowerBound,
            passAt = html.range(of: "ot.long-note")!.lowerBound
        #expect(failAt < passAt)
    }

    @Test func docsConformanceMatchesTheSuite() throws {
        let path = ExternalProcess.packageRoot.appendingPathComponent("docs/conformance.md")
        let text = try String(contentsOf: path, encoding: .utf8)
        #expect(
            text == ConformCatalogDoc.markdown(),
            "docs/conformance.md is stale: whalesim conform --list-markdown > docs/conformance.md")
        for c in ConformSuite.cases { #expect(text.contains("`\(c.id)`")) }
    }
}
