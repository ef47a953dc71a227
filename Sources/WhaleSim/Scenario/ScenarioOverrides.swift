import WhaleProtocol

/// Command-line changes to a scenario: what `--clients`, `--ops`, `--documents`, `--delay-max`,
/// `--queue-bound`, `--without-nemesis`, `--fault`, `--sqlite-synchronous` and, for a scenario with a `model` section,
/// `--board`, `--accounts` and `--model-only` say. The shrinker produces these too, and ``arguments``
/// spells them back for the one-line replay command. They never touch fault windows: those live
/// in the scenario (its file), which the replay command names.
public struct ScenarioOverrides: Hashable, Sendable {
    public var clients: Int?
    public var documents: Int?
    public var ops: Int?
    public var delayMax: Int?
    public var queueBound: Int?
    public var withoutNemeses: [NemesisSpec.Kind] = []
    public var faults: [Fault] = []
    /// The server storage's sync level (`--sqlite-synchronous`, ``StorageSync``).
    public var storageSync: StorageSync?
    /// How many of the first clients are on the board (`model.board`); the others are on account pages.
    public var boardClients: Int?
    /// How many accounts the account pages are spread over (`model.accounts`).
    public var accounts: Int?
    /// Only the model workloads: every other action of the mix weighs 0 (a model failure
    /// needs no typing, and typing spends ops).
    public var modelOnly = false

    public init(
        clients: Int? = nil, documents: Int? = nil, ops: Int? = nil, delayMax: Int? = nil, queueBound: Int? = nil,
        withoutNemeses: [NemesisSpec.Kind] = [], faults: [Fault] = [],
        boardClients: Int? = nil, accounts: Int? = nil, modelOnly: Bool = false, storageSync: StorageSync? = nil
    ) {
        self.storageSync = storageSync
        self.boardClients = boardClients
        self.accounts = accounts
        self.modelOnly = modelOnly
        self.queueBound = queueBound
        self.clients = clients
        self.documents = documents
        self.ops = ops
        self.delayMax = delayMax
        self.withoutNemeses = withoutNemeses
        self.faults = faults
    }

    /// The scenario with these changes. Documents never exceed clients.
    public func apply(to base: Scenario) -> Scenario {
        var s = base
        if let clients { s.clients = clients }
        if let documents { s.documents = documents }
        s.documents = min(s.documents, s.clients)
        if let ops { s.ops = ops }
        if let delayMax { s.delay = s.delay.capped(at: delayMax) }
        if let queueBound { s.queueBound = queueBound }
        if let storageSync { s.storageSync = storageSync }
        s.nemeses.removeAll { withoutNemeses.contains($0.kind) }
        // A script keeps the steps of the clients left and its first `--ops` edits.
        if let script = s.script {
            s.script = script.restricted(clients: s.clients, edits: ops)
            s.ops = s.script!.editCount
        }
        if var model = s.model {
            if let boardClients { model.boardClients = boardClients }
            if let accounts { model.accounts = accounts }
            s.model = model
            if modelOnly {
                for action in ActionMix.Action.allCases where !action.isModel { s.mix[action] = 0 }
            }
        }
        // `--fault F`: F on for the whole run (replacing any windows the scenario gives it).
        for fault in faults where !s.faultWindows.contains(where: { $0.name == fault.rawValue && $0.isWholeRun }) {
            s.faultWindows.removeAll { $0.name == fault.rawValue }
            s.faultWindows.append(.wholeRun(fault.rawValue))
        }
        return s
    }

    /// Command-line arguments that reproduce these overrides, in a fixed order.
    public var arguments: [String] {
        var args: [String] = []
        if let clients { args += ["--clients", "\(clients)"] }
        if let documents { args += ["--documents", "\(documents)"] }
        if let ops { args += ["--ops", "\(ops)"] }
        if let delayMax { args += ["--delay-max", "\(delayMax)"] }
        if let queueBound { args += ["--queue-bound", "\(queueBound)"] }
        for kind in NemesisSpec.Kind.allCases where withoutNemeses.contains(kind) {
            args += ["--without-nemesis", kind.rawValue]
        }
        for fault in Fault.allCases where faults.contains(fault) { args += ["--fault", fault.rawValue] }
        if let storageSync { args += ["--sqlite-synchronous", storageSync.rawValue] }
        if let boardClients { args += ["--board", "\(boardClients)"] }
        if let accounts { args += ["--accounts", "\(accounts)"] }
        if modelOnly { args.append("--model-only") }
        return args
    }
}
