/// Runs the named checkers over a history and merges their verdicts (invalid wins).
///
/// Each checker reads the history once more (twice for convergence), with its own window of the
/// server's log (``AppliedLog``): what each holds is bounded by the notes and the clients, and only
/// one holds anything at a time.
public enum Checkers {
    public static func run(_ names: [CheckerName], on history: History) -> [CheckResult] {
        names.sorted().map { name in
            switch name {
            case .convergence: ConvergenceChecker.check(history)
            case .intention: IntentionChecker.check(history)
            case .cursors: CursorChecker.check(history)
            case .revisions: RevisionChecker.check(history)
            case .liveness: LivenessChecker.check(history)
            case .model: ModelChecker.check(history)
            }
        }
    }

    public static func merged(_ results: [CheckResult]) -> Verdict {
        Verdict.merge(results.map(\.verdict))
    }
}
