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
    /// What the run lost that its protocol allows it to lose (the original protocol throws
    /// unacknowledged edits away on reconnect): reported, but not a violation
    /// (docs/decisions/0011-hardening-limits-fuzzing-findings.md).
    public var findings: [String]

    public init(checker: CheckerName, verdict: Verdict, evidence: [String] = [], findings: [String] = []) {
        self.checker = checker
        self.verdict = verdict
        self.evidence = evidence
        self.findings = findings
    }

    enum CodingKeys: String, CodingKey { case checker, verdict, evidence, findings }

    /// Run records written before `findings` existed decode with none.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        checker = try c.decode(CheckerName.self, forKey: .checker)
        verdict = try c.decode(Verdict.self, forKey: .verdict)
        evidence = try c.decode([String].self, forKey: .evidence)
        findings = try c.decodeIfPresent([String].self, forKey: .findings) ?? []
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(checker, forKey: .checker)
        try c.encode(verdict, forKey: .verdict)
        try c.encode(evidence, forKey: .evidence)
        if !findings.isEmpty { try c.encode(findings, forKey: .findings) }
    }
}

/// Collects evidence while a checker runs; at most `limit` lines are kept (the count is not capped).
struct Evidence {
    private(set) var lines: [String] = []
    private(set) var findings: [String] = []
    private(set) var findingCount = 0
    private(set) var problems = 0
    private(set) var unknowns = 0
    let limit: Int
    init(limit: Int = 12) { self.limit = limit }

    mutating func invalid(_ line: @autoclosure () -> String) {
        problems += 1
        if lines.count < limit { lines.append(line()) }
    }

    /// Something the protocol allows but a user should hear about; does not change the verdict.
    mutating func finding(_ line: @autoclosure () -> String) {
        findingCount += 1
        if findings.count < limit { findings.append(line()) }
    }

    mutating func unknown(_ line: @autoclosure () -> String) {
        unknowns += 1
        if lines.count < limit { lines.append("unknown: " + line()) }
    }

    /// Adds what `other` collected: its lines while there is room, every count.
    mutating func absorb(_ other: Evidence) {
        problems += other.problems
        unknowns += other.unknowns
        findingCount += other.findingCount
        for line in other.lines where lines.count < limit { lines.append(line) }
        for line in other.findings where findings.count < limit { findings.append(line) }
    }

    func result(_ checker: CheckerName) -> CheckResult {
        var lines = lines
        if problems + unknowns > lines.count { lines.append("… \(problems + unknowns - lines.count) more") }
        let verdict: Verdict = problems > 0 ? .invalid : (unknowns > 0 ? .unknown : .valid)
        var findings = findings
        if findingCount > findings.count { findings.append("… \(findingCount - findings.count) more") }
        return CheckResult(checker: checker, verdict: verdict, evidence: lines, findings: findings)
    }
}
