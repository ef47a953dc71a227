/// A checker's answer. Merged, `invalid` wins over `unknown`, which wins over `valid`
/// (Jepsen's `merge-valid`).
public enum Verdict: String, Hashable, Sendable, Codable, CaseIterable, Comparable {
    case valid, unknown, invalid

    private var rank: Int {
        switch self {
        case .valid: 0
        case .unknown: 1
        case .invalid: 2
        }
    }

    public static func < (a: Verdict, b: Verdict) -> Bool { a.rank < b.rank }

    /// The merged verdict of several checkers.
    public static func merge(_ verdicts: some Sequence<Verdict>) -> Verdict {
        verdicts.reduce(.valid) { max($0, $1) }
    }
}

/// One checker's verdict with the evidence behind it (empty when valid).
public struct CheckResult: Hashable, Sendable, Codable {
    public var checker: CheckerName
    public var verdict: Verdict
    /// Human-readable lines: what was wrong (invalid) or why it could not tell (unknown).
    public var evidence: [String]

    public init(checker: CheckerName, verdict: Verdict, evidence: [String] = []) {
        self.checker = checker
        self.verdict = verdict
        self.evidence = evidence
    }
}

/// Collects evidence while a checker runs; at most `limit` lines are kept (the count is not capped).
struct Evidence {
    private(set) var lines: [String] = []
    private(set) var problems = 0
    private(set) var unknowns = 0
    let limit: Int
    init(limit: Int = 12) { self.limit = limit }

    mutating func invalid(_ line: @autoclosure () -> String) {
        problems += 1
        if lines.count < limit { lines.append(line()) }
    }

    mutating func unknown(_ line: @autoclosure () -> String) {
        unknowns += 1
        if lines.count < limit { lines.append("unknown: " + line()) }
    }

    func result(_ checker: CheckerName) -> CheckResult {
        var lines = lines
        if problems + unknowns > lines.count { lines.append("… \(problems + unknowns - lines.count) more") }
        let verdict: Verdict = problems > 0 ? .invalid : (unknowns > 0 ? .unknown : .valid)
        return CheckResult(checker: checker, verdict: verdict, evidence: lines)
    }
}
