import Foundation

/// Writes a run's `junit.xml` (one test case per conformance case: failures with their evidence,
/// not-applicable and expected failures as skipped) and `report.html` (failing cases first).
public enum ConformReportFiles {
    public static func write(_ summary: ConformSummary, target: String, protocolVersion: Int, to directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try junit(summary).write(toFile: (directory as NSString).appendingPathComponent("junit.xml"), atomically: true, encoding: .utf8)
        try html(summary, target: target, protocolVersion: protocolVersion)
            .write(toFile: (directory as NSString).appendingPathComponent("report.html"), atomically: true, encoding: .utf8)
    }

    public static func junit(_ summary: ConformSummary) -> String {
        let results = summary.results
        let skipped = results.filter { r in
            if case .notApplicable = r.verdict { return true }
            if case .fail = r.verdict { return r.expectedToFail }
            return false
        }.count
        let total = results.reduce(0) { $0 + $1.seconds }
        var xml = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        xml += #"<testsuites name="whalesim conform" tests="\#(results.count)" failures="\#(summary.unexpectedFailures.count)" errors="0" skipped="\#(skipped)" time="\#(String(format: "%.3f", total))">"# + "\n"
        for category in ConformCase.Category.allCases {
            let group = results.filter { $0.category == category }
            guard !group.isEmpty else { continue }
            let failures = group.filter(\.isUnexpectedFailure).count
            let skips = group.filter { r in
                if case .notApplicable = r.verdict { return true }
                if case .fail = r.verdict { return r.expectedToFail }
                return false
            }.count
            xml += #"  <testsuite name="conform.\#(category.rawValue)" tests="\#(group.count)" failures="\#(failures)" errors="0" skipped="\#(skips)" time="\#(String(format: "%.3f", group.reduce(0) { $0 + $1.seconds }))">"# + "\n"
            for r in group {
                xml += #"    <testcase classname="conform.\#(category.rawValue)" name="\#(escape(r.id))" time="\#(String(format: "%.3f", r.seconds))">"#
                switch r.verdict {
                case .pass:
                    if r.expectedToFail { xml += "\n      <system-out>\(escape("listed in --expect-fail but passes now: take it off the list"))</system-out>\n    " }
                case .fail(let evidence):
                    let text = evidence + ConformSummary.suspectNote(r.suspects)
                    if r.expectedToFail {
                        xml += "\n      <skipped message=\"\(escape("expected failure (--expect-fail)"))\">\(escape(text))</skipped>\n    "
                    } else {
                        xml += "\n      <failure message=\"\(escape(String(text.prefix(300))))\" type=\"conformance\">\(escape(text))</failure>\n    "
                    }
                case .notApplicable(let reason):
                    xml += "\n      <skipped message=\"\(escape("not applicable: " + reason))\"/>\n    "
                }
                xml += "</testcase>\n"
            }
            xml += "  </testsuite>\n"
        }
        return xml + "</testsuites>\n"
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
        return results.enumerated().sorted { (rank($0.element), $0.offset) < (rank($1.element), $1.offset) }.map(\.element)
    }

    public static func html(_ summary: ConformSummary, target: String, protocolVersion: Int) -> String {
        var rows = ""
        for r in ordered(summary.results) {
            let (label, css, detail): (String, String, String) = switch r.verdict {
            case .pass where r.expectedToFail: ("pass — listed as expected to fail", "unexpected-pass", "take it off the --expect-fail list")
            case .pass: ("pass", "pass", "")
            case .fail(let evidence): (r.expectedToFail ? "fail (expected)" : "FAIL", r.expectedToFail ? "expected" : "fail",
                                       evidence + ConformSummary.suspectNote(r.suspects))
            case .notApplicable(let reason): ("not applicable", "na", reason)
            }
            rows += "<tr class=\"\(css)\"><td class=\"verdict\">\(escape(label))</td><td><code>\(escape(r.id))</code><div class=\"checks\">\(escape(r.checks))</div></td>"
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

    static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default:
                // XML 1.0 forbids most control characters; show them as escapes.
                if scalar.value < 0x20, scalar != "\n", scalar != "\t" { out += String(format: "\\u{%X}", scalar.value) } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out
    }
}
