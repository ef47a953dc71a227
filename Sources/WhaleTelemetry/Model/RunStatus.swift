/// What the dashboard shows beside the figures: the phase, the time into the run, the fault
/// windows so far, each checker's state, and at the end the verdict with a link to the report.
public struct RunStatus: Sendable, Codable, Equatable {
    /// `starting`, `running`, `finished` (free text for other commands: `simulating`, `conforming`).
    public var phase: String
    /// Seconds since the load began (the dashboard's x axis).
    public var elapsedSeconds: Double
    /// What the page's title says: the command and scenario, e.g. `run soak (seed 7)`.
    public var title: String
    public var faultWindows: [FaultWindow]
    public var checkers: [CheckerState]
    /// The verdict once the run has ended: `pass`, `fail`, `unknown` (nil while running).
    public var verdict: String?
    /// One line that says why, e.g. the first breached threshold.
    public var verdictNote: String?
    /// Where the report is (a `file://` URL or a path), once written.
    public var reportURL: String?

    public init(
        phase: String = "starting", elapsedSeconds: Double = 0, title: String = "whalesim",
        faultWindows: [FaultWindow] = [], checkers: [CheckerState] = [], verdict: String? = nil,
        verdictNote: String? = nil, reportURL: String? = nil
    ) {
        self.phase = phase
        self.elapsedSeconds = elapsedSeconds
        self.title = title
        self.faultWindows = faultWindows
        self.checkers = checkers
        self.verdict = verdict
        self.verdictNote = verdictNote
        self.reportURL = reportURL
    }

    /// A fault window: its kind (`partition`, `server-restart`, `power-loss`, ...) and when, in
    /// seconds into the run; `endSeconds` is nil while it is in force.
    public struct FaultWindow: Sendable, Codable, Equatable {
        public var kind: String
        public var startSeconds: Double
        public var endSeconds: Double?
        public init(kind: String, startSeconds: Double, endSeconds: Double? = nil) {
            self.kind = kind
            self.startSeconds = startSeconds
            self.endSeconds = endSeconds
        }
    }

    /// A checker as it stands: `valid` (so far), `invalid`, `unknown`, or `pending` (judged at the end).
    public struct CheckerState: Sendable, Codable, Equatable {
        public var name: String
        public var state: String
        public var violations: Int
        public var unknowns: Int
        /// The latest evidence, e.g. "client 3 lost 'abc' acked at 12.4 s".
        public var note: String?
        public init(name: String, state: String, violations: Int = 0, unknowns: Int = 0, note: String? = nil) {
            self.name = name
            self.state = state
            self.violations = violations
            self.unknowns = unknowns
            self.note = note
        }
    }
}
