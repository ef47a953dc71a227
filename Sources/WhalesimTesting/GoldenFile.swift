import Foundation

/// Golden-file comparison with a record switch, after swift-argument-parser's `assertSnapshot`:
/// the expected output lives in a file beside the test; `WHALESIM_RECORD_GOLDEN=1 swift test`
/// rewrites it from the actual output (then review the diff and commit it).
///
/// ```swift
/// if let problem = GoldenFile.compare(html, with: fixtures.appendingPathComponent("report.html")) {
///     Issue.record(Comment(rawValue: problem))
/// }
/// ```
public enum GoldenFile {
    /// Whether this test run records golden files instead of checking them.
    public static var recording: Bool { ProcessInfo.processInfo.environment["WHALESIM_RECORD_GOLDEN"] == "1" }

    /// Nil when `actual` equals the file (or was just recorded); else a message naming the
    /// first differing line, to be reported as a test failure.
    public static func compare(_ actual: String, with file: URL) -> String? {
        if recording {
            do {
                try FileManager.default.createDirectory(
                    at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(actual.utf8).write(to: file)
                return nil
            } catch {
                return "could not record \(file.path): \(error)"
            }
        }
        guard let expected = try? String(contentsOf: file, encoding: .utf8) else {
            return "no golden file \(file.path); record it with WHALESIM_RECORD_GOLDEN=1 swift test"
        }
        guard expected != actual else { return nil }
        let e = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let a = actual.split(separator: "\n", omittingEmptySubsequences: false)
        let line = zip(e, a).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(e.count, a.count)
        let want = line < e.count ? String(e[line]) : "(end of file)"
        let got = line < a.count ? String(a[line]) : "(end of output)"
        return """
            output differs from \(file.lastPathComponent) at line \(line + 1):
              expected: \(want.prefix(300))
              actual:   \(got.prefix(300))
            (WHALESIM_RECORD_GOLDEN=1 swift test re-records it after a deliberate change)
            """
    }

    /// Replaces every match of each regular expression with its replacement: strips what
    /// differs between runs (timestamps, durations) before comparing.
    public static func normalize(_ text: String, _ rules: [(pattern: String, replacement: String)]) -> String {
        var out = text
        for rule in rules {
            out = out.replacingOccurrences(of: rule.pattern, with: rule.replacement, options: .regularExpression)
        }
        return out
    }
}
