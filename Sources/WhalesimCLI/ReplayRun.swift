import Foundation
import WhaleRun
import WhaleSim

/// `run --replay FILE [--users N] [--speed X]` and a scenario's `workload: {replay: FILE}`: the
/// recorded sessions as the run's workload (docs/sessions.md).
enum ReplayRun {
    /// The scenario of a replay given no scenario: `--users` users (10 by default) on one note
    /// (every replay of a recorded note edits the same live note), every checker that applies to
    /// notes, a constant load for as long as the longest session takes at the speed, plus 3 s.
    static func scenario(file: String) -> Scenario {
        let stem = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
        let name = String(("replay-" + stem).map { $0.isWhitespace || $0 == "/" ? "-" : $0 })
        var s = Scenario(name: name)
        s.description = "recorded sessions of \(file), replayed"
        s.mode = .live
        s.clients = 10
        s.documents = 1
        s.protocolVersion = 2
        s.initialText = ""
        s.checkers = [.convergence, .intention, .cursors, .revisions, .liveness]
        var live = LiveSpec()
        live.load = .constant
        live.importPages = 0
        live.quiescenceMs = 10_000
        s.live = live
        return s
    }

    /// Applies `--replay`, `--users` and `--speed` (or the scenario's `workload`) and loads the
    /// session file; a problem is added for each bad value. Nil when the run does not replay.
    static func plan(
        scenario s: inout Scenario, live: inout LiveSpec, file: String?, users: Int?, speed: Double?, ownScenario: Bool,
        durationGiven: Bool,
        overrides: inout [String], problems: inout [String]
    ) throws -> ReplayPlan? {
        if let file {
            s.replay = ReplaySpec(file: file, speed: s.replay?.speed ?? 1)
            overrides += ["--replay", file]
        }
        if let users {
            if s.replay == nil {
                problems.append("--users goes with --replay (or a scenario's workload: {replay:}); use --clients")
            }
            if (1...10_000).contains(users) {
                s.clients = users
                overrides += ["--users", "\(users)"]
            } else {
                problems.append("--users \(users): must be 1...10000")
            }
        }
        if let speed {
            if s.replay == nil { problems.append("--speed goes with --replay (or a scenario's workload: {replay:})") }
            if speed > 0, speed <= 1000, speed.isFinite {
                s.replay?.speed = speed
                overrides += ["--speed", "\(speed)"]
            } else {
                problems.append("--speed \(speed): must be above 0 and at most 1000")
            }
        }
        guard let spec = s.replay, problems.isEmpty else { return nil }
        let plan: ReplayPlan
        do { plan = try ReplayPlan.load(spec) } catch { throw BadInput("replay: \(error)") }
        // A replay's own scenario lasts as long as its longest session (a scenario file says its own).
        // A replay's own scenario ends once every user has played its session; its duration only
        // bounds that (three times the longest session at the speed, plus 30 s), unless given.
        if ownScenario {
            plan.endWhenPlayedBy = s.clients
            if !durationGiven { live.durationMs = plan.longestMs * 3 + 30_000 }
        }
        return plan
    }
}
