/// The checkers that can judge a history still being written (a live run's, mid-run), and what
/// each has found so far that no later event can undo: the live view's "violations so far".
///
/// Only the history's own per-event checks count here. Intention counts the per-op checks of
/// the ops that have left its window (``intentionWindow``: an op applied twice, text the server
/// changed, an op no client sent); revisions counts what clients saw (a revision that went back, acks out of
/// order or twice) and a server revision that went back. Everything that needs the end (an
/// acknowledged op missing from the final history, a gap in the record, the shadow text against
/// the server's) is left to the verdict after the run, as are the end-state checkers
/// (convergence, liveness, cursors, model), which need the run quiescent.
public enum CheckSoFar {
    /// Ops of a note the intention pass holds before it judges the oldest: far fewer than the
    /// verdict's window (thousands), so an op is judged soon after it was applied, not at the end.
    public static let intentionWindow = 16

    /// The checkers that say something mid-run, in report order.
    public static let checkers: [CheckerName] = [.intention, .revisions]

    /// What one checker found in the history so far.
    public struct Finding: Sendable, Equatable {
        public var checker: CheckerName
        /// Violations found so far (every one, not only the lines kept).
        public var violations: Int
        /// The first lines of evidence (at most 12).
        public var evidence: [String]
    }

    /// `checker`'s findings in `history` so far, or nil for a checker that judges only at the end.
    /// `window`: the intention pass's ops per note (tests make it smaller still).
    public static func check(_ checker: CheckerName, _ history: History, window: Int = intentionWindow) -> Finding? {
        switch checker {
        case .intention:
            var pass = IntentionPass(history: history, windowSize: window)
            for entry in history.events { pass.consume(entry) }
            let evidence = pass.soFar()
            return Finding(checker: checker, violations: evidence.problems, evidence: evidence.lines)
        case .revisions:
            let evidence = RevisionChecker.evidence(history)
            return Finding(checker: checker, violations: evidence.problems, evidence: evidence.lines)
        case .convergence, .cursors, .liveness, .model:
            return nil
        }
    }
}
