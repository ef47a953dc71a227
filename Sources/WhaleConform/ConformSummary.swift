import WhaleProtocol

/// What a run's results add up to: counts, the exit code, and the printed lines.
public struct ConformSummary: Sendable {
    public let results: [ConformResult]
    public init(_ results: [ConformResult]) { self.results = results }

    public var passed: Int { results.filter { $0.verdict == .pass }.count }
    public var failed: Int {
        results.filter {
            if case .fail = $0.verdict { return true }; return false
        }.count
    }
    public var unexpectedFailures: [ConformResult] { results.filter(\.isUnexpectedFailure) }
    public var unexpectedPasses: [ConformResult] { results.filter(\.isUnexpectedPass) }
    public var notApplicable: Int {
        results.filter {
            if case .notApplicable = $0.verdict { return true }; return false
        }.count
    }

    /// 0 when every case passed or failed as expected, 2 when one failed unexpectedly.
    public var exitCode: Int32 { unexpectedFailures.isEmpty ? 0 : 2 }

    /// The one-line summary printed last.
    public var line: String {
        var parts = ["\(results.count) cases", "\(passed) pass", "\(failed) fail"]
        let expected = failed - unexpectedFailures.count
        if expected > 0 { parts[2] += " (\(expected) expected)" }
        parts.append("\(notApplicable) not applicable")
        var text = "conform: " + parts.joined(separator: ", ")
        if !unexpectedPasses.isEmpty {
            text +=
                "; \(unexpectedPasses.count) listed as expected to fail now PASS: \(unexpectedPasses.map(\.id).joined(separator: ", ")) (take them off the --expect-fail list)"
        }
        return text
    }

    /// A case's printed line: verdict, id, time, and the evidence or the reason.
    public static func line(for r: ConformResult) -> String {
        let time = String(format: "%.2fs", r.seconds)
        switch r.verdict {
        case .pass where r.expectedToFail:
            return "PASS  \(r.id) (\(time)) — listed in --expect-fail but PASSES NOW: take it off the list"
        case .pass:
            return "pass  \(r.id) (\(time))"
        case .fail(let evidence):
            let word = r.expectedToFail ? "fail (expected)" : "FAIL"
            return "\(word)  \(r.id) (\(time)): \(evidence)\(suspectNote(r.suspects))"
        case .notApplicable(let reason):
            return "n/a   \(r.id): \(reason)"
        }
    }

    /// " — likely cause: the catalog fault F (what it does)" for a failing case's suspects.
    static func suspectNote(_ suspects: [Fault]) -> String {
        guard !suspects.isEmpty else { return "" }
        return " — likely cause: "
            + suspects.map { "catalog fault \($0.rawValue) (\($0.summary))" }.joined(separator: " or ")
    }
}
