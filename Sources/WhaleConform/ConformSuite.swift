#if canImport(Glibc)
    import Glibc
#endif
import Foundation
import WhaleProtocol

/// The conformance suite: every case, in the order it runs (docs/conformance.md lists them),
/// the `--only` filter, and the runner.
///
/// ```swift
/// let target = ConformTarget(baseURL: "http://127.0.0.1:8080")
/// let results = await ConformSuite.run(target, only: "ot.*") { print($0.id, $0.verdict.word) }
/// ```
public enum ConformSuite {
    public static let cases: [ConformCase] =
        OTCases.all + SessionCases.all + CursorCases.all + ModelCases.all + ModelEdgeCases.all + SecurityCases.all
        + SecurityEdgeCases.all + DurabilityCases.all

    /// The cases `pattern` selects: comma-separated globs (`*`, `?`) over ids, where a pattern
    /// without a wildcard is an id or an id prefix ending at a dot (`ot`, `security.token`).
    /// Nil selects every case.
    public static func matching(_ pattern: String?) -> [ConformCase] {
        guard let pattern else { return cases }
        let parts = pattern.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return cases.filter { c in
            parts.contains { part in
                if part.contains("*") || part.contains("?") { return fnmatch(part, c.id, 0) == 0 }
                return c.id == part || c.id.hasPrefix(part.hasSuffix(".") ? part : part + ".")
                    || c.id.hasPrefix(part + "-")
            }
        }
    }

    /// Why `c` cannot run against `target`, or nil when it can.
    public static func notApplicable(_ c: ConformCase, to target: ConformTarget) -> String? {
        if c.requires.contains(.protocol2), target.protocolVersion != .v2 {
            return "protocol 2 only (PROTOCOL.md §3); the target is tested in protocol 1"
        }
        if c.requires.contains(.restart), target.restarter == nil {
            return
                "needs a way to kill and restart the server: --restart-command, or no --server (conform starts its own)"
        }
        if c.requires.contains(.jwtSecret), target.jwtSecret == nil {
            return "needs the server's JWT key (--jwt-secret) to sign a valid but expired token"
        }
        return nil
    }

    /// Runs `cases` one after another (they share the server, so never two at once), calling
    /// `progress` as each ends; `expected` lists ids known to fail (`--expect-fail`).
    public static func run(
        _ target: ConformTarget, cases: [ConformCase] = ConformSuite.cases, expected: Set<String> = [],
        progress: @Sendable (ConformResult) -> Void = { _ in }
    ) async -> [ConformResult] {
        let run = RunState(target: target, tag: runTag())
        var results: [ConformResult] = []
        for c in cases {
            let started = ContinuousClock.now
            let verdict: ConformVerdict
            if let reason = notApplicable(c, to: target) {
                verdict = .notApplicable(reason: reason)
            } else {
                let context = CaseContext(run: run, caseId: c.id)
                do {
                    try await c.body(context)
                    verdict = .pass
                } catch {
                    verdict =
                        error.isNotApplicable ? .notApplicable(reason: error.evidence) : .fail(evidence: error.evidence)
                }
                await context.closeAll()
            }
            let elapsed = ContinuousClock.now - started
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            let result = ConformResult(
                id: c.id, category: c.category, checks: c.checks, suspects: c.suspects, verdict: verdict,
                expectedToFail: expected.contains(c.id), seconds: seconds)
            results.append(result)
            progress(result)
        }
        await run.stop()
        return results
    }

    /// A tag unique to this run (time and randomness), so the accounts it creates are new.
    static func runTag() -> String {
        "\(Int(Date().timeIntervalSince1970))-\(String(UInt32.random(in: 0...UInt32.max), radix: 36))"
    }
}

/// `--expect-fail FILE`: one case id per line; `#` starts a comment; blank lines are ignored.
/// Ids that name no case are an error (a typo would otherwise hide a real failure).
public enum ExpectedFailures {
    public static func parse(_ text: String) throws(ConformFailure) -> Set<String> {
        var ids = Set<String>(), unknown: [String] = []
        let known = Set(ConformSuite.cases.map(\.id))
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line =
                raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init)?
                .trimmingCharacters(in: .whitespaces) ?? ""
            guard !line.isEmpty else { continue }
            if known.contains(line) { ids.insert(line) } else { unknown.append("line \(number + 1): \(line)") }
        }
        if !unknown.isEmpty {
            throw ConformFailure("--expect-fail names no such case: \(unknown.joined(separator: "; "))")
        }
        return ids
    }
}
