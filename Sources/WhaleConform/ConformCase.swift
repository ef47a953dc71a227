import WhaleProtocol

/// One named conformance case: a small script of clients, frames and timing with its expected
/// outcome from PROTOCOL.md and the OT oracle. Its `id` is stable, so a team can track it in CI
/// and list it in an `--expect-fail` file.
public struct ConformCase: Sendable {
    /// The section of the suite a case belongs to (the part of its id before the first dot).
    public enum Category: String, Sendable, CaseIterable {
        case ot, sessions, cursors, model, security, durability
        /// The heading docs/conformance.md and the report use.
        public var title: String {
            switch self {
            case .ot: "OT"
            case .sessions: "Sessions"
            case .cursors: "Cursors"
            case .model: "Model"
            case .security: "Bad input and security"
            case .durability: "Durability"
            }
        }
    }

    /// What a case needs of the target; a target without it gets "not applicable".
    public enum Requirement: Sendable, Hashable {
        /// whalesim's extensions (PROTOCOL.md §3): errors, op ids, resync, cursors, auth on the socket.
        case protocol2
        /// A way to kill and restart the server: the embedded server, or `--restart-command`.
        case restart
        /// The server's JWT key, to sign a token that is valid but expired.
        case jwtSecret
    }

    public let id: String
    public let category: Category
    /// What the case checks, in one or two sentences (docs/conformance.md lists them).
    public let checks: String
    public let requires: Set<Requirement>
    /// Catalog faults whose symptom this case shows: a failure names them as likely causes.
    public let suspects: [Fault]
    let body: @Sendable (CaseContext) async throws(ConformFailure) -> Void

    init(
        _ id: String, _ checks: String, requires: Set<Requirement> = [], suspects: [Fault] = [],
        body: @escaping @Sendable (CaseContext) async throws(ConformFailure) -> Void
    ) {
        self.id = id
        guard let category = Category(rawValue: String(id.prefix { $0 != "." })) else {
            fatalError("case id \(id) has no known category")
        }
        self.category = category
        self.checks = checks
        self.requires = requires
        self.suspects = suspects
        self.body = body
    }
}

/// A case's expected outcome did not happen: what was expected, and what came instead.
public struct ConformFailure: Error, CustomStringConvertible, Sendable {
    public var evidence: String
    /// Not a failure: the case found out while running that the target cannot be tried on what
    /// it checks (an edge it does not have, such as refresh tokens it never rotates); `evidence`
    /// says why, and the verdict is `n/a`.
    public var isNotApplicable = false
    public init(_ evidence: String) { self.evidence = evidence }
    public var description: String { evidence }

    /// The case cannot run against this target, for `reason` (found out by asking it).
    static func notApplicable(_ reason: String) -> ConformFailure {
        var failure = ConformFailure(reason)
        failure.isNotApplicable = true
        return failure
    }
}

/// How one case ended.
public enum ConformVerdict: Sendable, Hashable {
    case pass
    case fail(evidence: String)
    case notApplicable(reason: String)

    public var word: String {
        switch self {
        case .pass: "pass"
        case .fail: "FAIL"
        case .notApplicable: "n/a"
        }
    }
}

/// One case's result as the report shows it.
public struct ConformResult: Sendable {
    public var id: String
    public var category: ConformCase.Category
    public var checks: String
    public var suspects: [Fault]
    public var verdict: ConformVerdict
    /// Listed in the `--expect-fail` file.
    public var expectedToFail: Bool
    public var seconds: Double

    /// A failure not listed as expected: this fails the run.
    public var isUnexpectedFailure: Bool {
        if case .fail = verdict { return !expectedToFail }
        return false
    }

    /// Listed as a known failure but passed: the list is out of date.
    public var isUnexpectedPass: Bool { expectedToFail && verdict == .pass }
}
