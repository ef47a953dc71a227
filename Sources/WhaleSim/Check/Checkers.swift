/// Runs the named checkers over a history and merges their verdicts (invalid wins).
public enum Checkers {
    public static func run(_ names: [CheckerName], on history: History) -> [CheckResult] {
        names.sorted().map { name in
            switch name {
            case .convergence: ConvergenceChecker.check(history)
            case .intention: IntentionChecker.check(history)
            case .cursors: CursorChecker.check(history)
            case .revisions: RevisionChecker.check(history)
            case .liveness: LivenessChecker.check(history)
            }
        }
    }

    public static func merged(_ results: [CheckResult]) -> Verdict {
        Verdict.merge(results.map(\.verdict))
    }
}
