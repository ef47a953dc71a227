/// Runs the named checkers over a history and merges their verdicts (invalid wins).
public enum Checkers {
    public static func run(_ names: [CheckerName], on history: History) -> [CheckResult] {
        let needsLog = names.contains { $0 == .convergence || $0 == .intention || $0 == .revisions }
        let log = needsLog ? AppliedLog.final(history) : AppliedLog(documents: 0)
        return names.sorted().map { name in
            switch name {
            case .convergence: ConvergenceChecker.check(history, log: log)
            case .intention: IntentionChecker.check(history, log: log)
            case .cursors: CursorChecker.check(history)
            case .revisions: RevisionChecker.check(history, log: log)
            case .liveness: LivenessChecker.check(history)
            case .model: ModelChecker.check(history)
            }
        }
    }

    public static func merged(_ results: [CheckResult]) -> Verdict {
        Verdict.merge(results.map(\.verdict))
    }
}
