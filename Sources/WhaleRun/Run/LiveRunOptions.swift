import Foundation
import WhaleSim

/// How `whalesim run` was asked to run a scenario.
public struct LiveRunOptions: Sendable {
    public var scenario: Scenario
    /// How the scenario was named on the command line (for the replay command).
    public var scenarioRef: String
    public var seed: UInt64
    /// Slice `index` of `count` (clients whose number modulo `count` is `index`); nil: all.
    public var shard: (index: Int, count: Int)?
    /// The project directory holding `Fixtures/` (seed users, the Salesforce org).
    public var fixtures: URL
    /// Where run directories go (`Reports/`).
    public var reportsRoot: String
    /// Salesforce credentials for a non-embedded Salesforce (`username:password+token`).
    public var salesforceUser: String?
    public var salesforceClient: (id: String, secret: String) = ("whalesim-client", "whalesim-secret")
    /// Overrides of the scenario (clients, duration), as the replay command repeats them.
    public var overrides: [String] = []
    /// A live progress line (terminal) or plain lines every few seconds.
    public var progress: ProgressStyle = .lines
    /// The `whalesim` executable to run the embedded server as a child process (`serve`); nil:
    /// the server runs in this process.
    public var serverExecutable: String?
    public enum ProgressStyle: Sendable { case terminal, lines, none }
    /// Test hook: the recorder of note 0 stops taking frames this many ms into the load (a
    /// stalled observer: its run must end `unknown` where nothing fills the gap, never `invalid`).
    public var stallRecorderAtMs: Int?
    /// Test hook: every event loop of the runner is blocked this many ms out of every 250 ms of
    /// the load (a generator starved of CPU: its latency thresholds must end `unknown`).
    public var starveRunnerMs: Int?
    /// For a server whalesim does not start: `CMD kill` at the start of a server-restart or
    /// power-loss window, `CMD start` at its end (run by /bin/sh; docs/lazyfs.md).
    public var restartCommand: String?
    /// For a server whalesim does not start: the control file of the `whalesim lazyfs` mount its
    /// data directory is on (a power-loss window writes `drop` there between kill and start).
    public var lazyfsControl: String?
    /// For a server whalesim does not start: its backpressure log (`serve --backpressure-log`'s
    /// JSON lines), read into the history at the end of the run so a reproducer can place the
    /// server's slow marks (lines from before the run are skipped).
    public var serverBackpressureLog: String?
    /// The recorded sessions the users play instead of the seeded behaviour (the scenario's
    /// `workload: {replay:}`, loaded and checked before the run).
    public var replayPlan: ReplayPlan?
    /// `--start-at`: the load begins at this moment, after the setup (``StartTime``); nil: at once.
    public var startAt: Date?

    public init(scenario: Scenario, scenarioRef: String, seed: UInt64, fixtures: URL, reportsRoot: String) {
        self.scenario = scenario
        self.scenarioRef = scenarioRef
        self.seed = seed
        self.fixtures = fixtures
        self.reportsRoot = reportsRoot
    }

    /// The command that runs this again.
    public var replayCommand: String {
        // A replay with no scenario of its own is named by its overrides (`--replay FILE --users N`).
        var parts =
            ["whalesim", "run"] + (scenarioRef.isEmpty ? [] : [scenarioRef]) + ["--seed", "\(seed)"] + overrides
        if let shard { parts += ["--shard", "\(shard.index)/\(shard.count)"] }
        return ShellCommand.line(parts)
    }
}
