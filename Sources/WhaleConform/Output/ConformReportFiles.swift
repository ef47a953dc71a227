import Foundation
import WhaleCore

/// Writes a run's `junit.xml` (one test case per conformance case: failures with their evidence,
/// not-applicable and expected failures as skipped) and `report.html` (failing cases first).
public enum ConformReportFiles {
    public static func write(_ summary: ConformSummary, target: String, protocolVersion: Int, to directory: String)
        throws
    {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try junit(summary).write(
            toFile: (directory as NSString).appendingPathComponent("junit.xml"), atomically: true, encoding: .utf8)
        try html(summary, target: target, protocolVersion: protocolVersion)
            .write(
                toFile: (directory as NSString).appendingPathComponent("report.html"), atomically: true, encoding: .utf8
            )
    }

    /// One suite per case category (WhaleCore's one JUnit writer); an expected failure and a case
    /// that does not apply are skipped, a listed failure that passes says so in its output.
    public static func junit(_ summary: ConformSummary) -> String {
        var suites: [JUnitDocument.Suite] = []
        for category in ConformCase.Category.allCases {
            let group = summary.results.filter { $0.category == category }
            guard !group.isEmpty else { continue }
            let cases = group.map { r -> JUnitDocument.Case in
                var systemOut: String?
                let outcome: JUnitDocument.Outcome
                switch r.verdict {
                case .pass:
                    outcome = .passed
                    if r.expectedToFail { systemOut = "listed in --expect-fail but passes now: take it off the list" }
                case .fail(let evidence):
                    let text = evidence + ConformSummary.suspectNote(r.suspects)
                    outcome =
                        r.expectedToFail
                        ? .skipped(message: "expected failure (--expect-fail)", text: text)
                        : .failed(message: String(text.prefix(300)), type: "conformance", text: text)
                case .notApplicable(let reason):
                    outcome = .skipped(message: "not applicable: " + reason)
                }
                return .init(
                    classname: "conform.\(category.rawValue)", name: r.id, time: r.seconds, outcome: outcome,
                    systemOut: systemOut)
            }
            suites.append(
                .init(name: "conform.\(category.rawValue)", time: group.reduce(0) { $0 + $1.seconds }, cases: cases))
        }
        var document = JUnitDocument(
            name: "whalesim conform", time: summary.results.reduce(0) { $0 + $1.seconds }, suites: suites)
        document.forbidden = .visibleEscape
        return document.render()
    }

    /// Unexpected failures, then expected ones, then cases listed as failing that pass, then
    /// passes, then not applicable; the suite's order within each.
    static func ordered(_ results: [ConformResult]) -> [ConformResult] {
        func rank(_ r: ConformResult) -> Int {
            switch r.verdict {
            case .fail: return r.expectedToFail ? 1 : 0
            case .pass: return r.expectedToFail ? 2 : 3
            case .notApplicable: return 4
            }
        }
        return results.enumerated().sorted { (rank($0.element), $0.offset) < (rank($1.element), $1.offset) }.map(
            \.element)
    }

    public static func html(_ summary: ConformSummary, target: String, protocolVersion: Int) -> String {
        var rows = ""
        for r in ordered(summary.results) {
            let (label, css, detail): (String, String, String) =
                switch r.verdict {
                case .pass where r.expectedToFail:
                    ("pass — listed as expected to fail", "unexpected-pass", "take it off the --expect-fail list")
                case .pass: ("pass", "pass", "")
                case .fail(let evidence):
                    (
                        r.expectedToFail ? "fail (expected)" : "FAIL", r.expectedToFail ? "expected" : "fail",
                        evidence + ConformSummary.suspectNote(r.suspects)
                    )
                case .notApplicable(let reason): ("not applicable", "na", reason)
                }
            rows +=
                "<tr class=\"\(css)\"><td class=\"verdict\">\(escape(label))</td><td><code>\(escape(r.id))</code><div class=\"checks\">\(escape(r.checks))</div></td>"
            rows += "<td>\(escape(detail))</td><td class=\"time\">\(String(format: "%.2f s", r.seconds))</td></tr>\n"
        }
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>whalesim conform: \(escape(target))</title>
            <style>
            :root { color-scheme: light dark; --fail: #c62828; --pass: #2e7d32; --muted: #888; }
            body { font: 14px/1.45 system-ui, sans-serif; margin: 2em; }
            table { border-collapse: collapse; width: 100%; }
            td, th { border-bottom: 1px solid #8884; padding: .4em .6em; vertical-align: top; text-align: left; }
            .verdict { font-weight: 600; white-space: nowrap; }
            tr.fail .verdict, tr.unexpected-pass .verdict { color: var(--fail); }
            tr.pass .verdict { color: var(--pass); }
            tr.na, tr.expected { color: var(--muted); }
            .checks { color: var(--muted); font-size: 90%; }
            .time { white-space: nowrap; text-align: right; }
            td:nth-child(3) { word-break: break-word; max-width: 60em; }
            </style></head><body>
            <h1>whalesim conform</h1>
            <p>Target <code>\(escape(target))</code>, protocol \(protocolVersion). \(escape(summary.line)).</p>
            <table><thead><tr><th>verdict</th><th>case</th><th>evidence</th><th>time</th></tr></thead><tbody>
            \(rows)</tbody></table>
            </body></html>

            """
    }

    /// XML- and HTML-safe text (WhaleCore's one escaper); a forbidden control character is shown as
    /// `\u{X}`, so the evidence still says what the server sent.
    static func escape(_ text: String) -> String { MarkupEscaping.xml(text, forbidden: .visibleEscape) }
}
