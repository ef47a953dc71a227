import NIOConcurrencyHelpers
import WhaleSim

/// The checkers as they stand while a watched run goes (`run --listen`): the history's own
/// checkers (``CheckSoFar``: intention, revisions) run again on the history recorded so far,
/// in the background, so the live view counts violations as they happen; the end-state
/// checkers wait for the verdict.
///
/// Nothing runs unless the live view asks (``refresh(recorder:nowMs:)`` from each snapshot),
/// and each pass reads the whole history so far, so passes are spaced by ``spacing`` times the
/// last one's cost (at least ``minimumIntervalMs``): on a long run a pass comes less often, and
/// the checks never take more than about 2% of one core.
final class LiveChecks: Sendable {
    /// A pass waits at least this many times as long as the last took.
    static let spacing = 50
    static let minimumIntervalMs = 2_000

    /// The last pass: what each checker found, when (run clock) and over how many events.
    struct Pass: Sendable {
        var findings: [CheckerName: CheckSoFar.Finding]
        var atMs: Int
        var events: Int
        var costMs: Int
    }

    private struct State {
        var last: Pass?
        var running = false
        var nextMs = 0
        var closed = false
    }
    private let state = NIOLockedValueBox(State())
    private let checkers: [CheckerName]

    init(checkers: [CheckerName]) {
        self.checkers = checkers.filter { CheckSoFar.checkers.contains($0) }
    }

    /// The last pass's findings (nil before the first has ended).
    var last: Pass? { state.withLockedValue { $0.last } }

    /// Whether `checker` is judged mid-run here.
    func judgesLive(_ checker: CheckerName) -> Bool { checkers.contains(checker) }

    /// Starts a pass in the background when one is due and none is running; never waits for it.
    func refresh(recorder: LiveRecorder?, clock: RunClock) {
        guard let recorder, !checkers.isEmpty else { return }
        let now = clock.nowMs
        let start = state.withLockedValue { s -> Bool in
            guard !s.closed, !s.running, now >= s.nextMs else { return false }
            s.running = true
            return true
        }
        guard start else { return }
        let checkers = checkers
        Task.detached(priority: .utility) { [self] in
            let began = clock.nowMs
            let history = recorder.history()
            var findings: [CheckerName: CheckSoFar.Finding] = [:]
            for checker in checkers { findings[checker] = CheckSoFar.check(checker, history) }
            let ended = clock.nowMs
            let cost = ended - began
            state.withLockedValue { s in
                s.running = false
                s.nextMs = ended + max(Self.minimumIntervalMs, Self.spacing * cost)
                guard !s.closed else { return }
                s.last = Pass(findings: findings, atMs: began, events: history.events.count, costMs: cost)
            }
        }
    }

    /// The load is over and the run heals: the verdict takes over, no pass starts any more.
    func close() { state.withLockedValue { $0.closed = true } }
}
