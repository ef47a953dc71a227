import Yams

extension Scenario {
    static let topLevelKeys = [
        "name", "description", "mode", "seed", "clients", "text", "ops", "ticks", "network",
        "think-time", "mix", "nemeses", "faults", "checkers", "thresholds", "model", "live", "script",
        "storage", "workload",
    ]

    /// Decodes a scenario strictly: unknown keys, wrong types and out-of-range values are all
    /// reported together in one ``ScenarioError`` (`source` names the file in messages).
    /// Missing keys take the defaults of ``Scenario/init(name:)``; `name` is required.
    public static func decode(yaml: String, source: String, knownFaults: [String] = FaultCatalog.names)
        throws(ScenarioError) -> Scenario
    {
        let root: Node?
        do {
            root = try Yams.compose(yaml: yaml)
        } catch {
            throw ScenarioError(source: source, problems: ["(top level): not valid YAML: \(error)"])
        }
        guard let root else { throw ScenarioError(source: source, problems: ["(top level): the file is empty"]) }
        var reader = NodeReader()
        let scenario = decode(root, reader: &reader, knownFaults: knownFaults)
        if !reader.problems.isEmpty || scenario == nil {
            throw ScenarioError(source: source, problems: reader.problems)
        }
        return scenario!
    }

    private static func decode(_ root: Node, reader r: inout NodeReader, knownFaults: [String]) -> Scenario? {
        guard let top = r.mapping(root, "", allowed: topLevelKeys) else { return nil }
        var s = Scenario(name: "")
        if let n = top["name"] {
            if let name = r.string(n, "name") {
                if name.isEmpty || name.contains(where: { $0 == "/" || $0.isWhitespace }) {
                    r.problem("name", "must be non-empty, without spaces or slashes, got \(String(reflecting: name))")
                } else {
                    s.name = name
                }
            }
        } else {
            r.problem("name", "missing (every scenario has a name)")
        }
        if let n = top["description"], let v = r.string(n, "description") { s.description = v }
        if let n = top["mode"], let v = r.choice(n, "mode", Mode.self, choices: Mode.allCases) { s.mode = v }
        if let n = top["seed"], let v = r.int(n, "seed", range: 0...Int.max) { s.seed = UInt64(v) }
        if let n = top["clients"] { decodeClients(n, into: &s, reader: &r) }
        if let n = top["text"],
            let m = r.mapping(n, "text", allowed: ["alphabet", "initial", "initial-size", "paste-min", "paste-max"])
        {
            if let a = m["alphabet"], let v = r.choice(a, "text.alphabet", Alphabet.self, choices: Alphabet.allCases) {
                s.alphabet = v
            }
            if let i = m["initial"], let v = r.string(i, "text.initial") { s.initialText = v }
            if let x = m["initial-size"], let v = r.int(x, "text.initial-size", range: 0...10_000_000) {
                s.initialText = Scenario.padded(s.initialText, toScalars: v)
            }
            var low = s.pasteSize.lowerBound, high = s.pasteSize.upperBound
            if let x = m["paste-min"], let v = r.int(x, "text.paste-min", range: 1...1_000_000) { low = v }
            if let x = m["paste-max"], let v = r.int(x, "text.paste-max", range: 1...1_000_000) { high = v }
            if low <= high {
                s.pasteSize = low...high
            } else {
                r.problem("text.paste-max", "\(high) is below text.paste-min \(low)")
            }
        }
        if let n = top["ops"], let v = r.int(n, "ops", range: 0...10_000_000) { s.ops = v }
        if let n = top["ticks"], let m = r.mapping(n, "ticks", allowed: ["safety", "liveness-budget"]) {
            if let x = m["safety"], let v = r.int(x, "ticks.safety", range: 1...1_000_000_000) { s.safetyTicks = v }
            if let x = m["liveness-budget"], let v = r.int(x, "ticks.liveness-budget", range: 1...1_000_000_000) {
                s.livenessBudget = v
            }
        }
        if let n = top["network"], let m = r.mapping(n, "network", allowed: ["delay", "queue-bound"]) {
            if let x = m["delay"], let v = decodeDelay(x, "network.delay", reader: &r) { s.delay = v }
            if let x = m["queue-bound"], let v = r.int(x, "network.queue-bound", range: 1...1_000_000) {
                s.queueBound = v
            }
        }
        if let n = top["think-time"], let v = decodeDelay(n, "think-time", reader: &r) { s.thinkTime = v }
        if let n = top["mix"] { decodeMix(n, into: &s, reader: &r) }
        if let n = top["nemeses"], let items = r.sequence(n, "nemeses") {
            s.nemeses = items.enumerated().compactMap { decodeNemesis($1, "nemeses[\($0)]", reader: &r) }
        }
        if let n = top["faults"] { s.faultWindows = decodeFaultWindows(n, reader: &r, knownFaults: knownFaults) }
        if let n = top["model"], let m = r.mapping(n, "model", allowed: ["board", "accounts"]) {
            var spec = ModelSpec(boardClients: 1, accounts: 1)
            if let x = m["board"], let v = r.int(x, "model.board", range: 0...10_000) { spec.boardClients = v }
            if let x = m["accounts"], let v = r.int(x, "model.accounts", range: 1...1_000) { spec.accounts = v }
            s.model = spec
        }
        if let n = top["storage"], let m = r.mapping(n, "storage", allowed: ["synchronous"]) {
            if let x = m["synchronous"],
                let v = r.choice(x, "storage.synchronous", StorageSync.self, choices: StorageSync.allCases)
            {
                s.storageSync = v
            }
        }
        if let n = top["live"] { s.live = decodeLive(n, reader: &r) }
        if let n = top["workload"], let m = r.mapping(n, "workload", allowed: ["replay", "speed"]) {
            var spec = ReplaySpec(file: "")
            if let x = m["replay"], let v = r.string(x, "workload.replay") {
                if v.isEmpty { r.problem("workload.replay", "an empty path") } else { spec.file = v }
            } else {
                r.problem("workload.replay", "missing: the session file whose recorded sessions the users play")
            }
            if let x = m["speed"], let v = r.double(x, "workload.speed") {
                if v > 0, v <= 1000 {
                    spec.speed = v
                } else {
                    r.problem("workload.speed", "must be above 0 and at most 1000, got \(v)")
                }
            }
            s.replay = spec
        }
        if let n = top["script"] {
            s.script = decodeScript(n, clients: s.clients, reader: &r)
            if top["ops"] != nil { r.problem("ops", "a scripted scenario's ops are its edit steps") }
            s.ops = s.script?.editCount ?? 0
            if !s.nemeses.isEmpty {
                r.problem("nemeses", "a scripted scenario has no nemeses: its script says when clients disconnect")
            }
            if top["mix"] != nil {
                r.problem("mix", "a scripted scenario has no workload: its script says what each client does")
            }
            if s.model != nil { r.problem("model", "a scripted scenario drives notes only (no model workloads)") }
            if s.mode == .live { r.problem("mode", "a scripted scenario runs in the simulator (mode: simulate)") }
        }
        if s.mode == .live, s.live == nil { s.live = LiveSpec() }
        if s.model == nil, let action = ActionMix.Action.allCases.first(where: { $0.isModel && s.mix[$0] > 0 }) {
            r.problem(
                "mix.\(action.rawValue)", "a model workload needs a `model` section (model: {board: N, accounts: K})")
        }
        if let n = top["checkers"], let items = r.sequence(n, "checkers") {
            s.checkers = items.enumerated().compactMap {
                r.choice($1, "checkers[\($0)]", CheckerName.self, choices: CheckerName.allCases)
            }
        }
        if let n = top["thresholds"], let items = r.sequence(n, "thresholds") {
            for (i, item) in items.enumerated() {
                guard let text = r.string(item, "thresholds[\(i)]") else { continue }
                if let t = parseThreshold(text) {
                    if s.checkers.contains(t.checker) {
                        s.thresholds.append(t)
                    } else {
                        r.problem("thresholds[\(i)]", "checker \(t.checker.rawValue) is not in checkers")
                    }
                } else if let first = text.split(separator: " ").first, CheckerName(rawValue: String(first)) != nil {
                    r.problem(
                        "thresholds[\(i)]",
                        "expected \"<checker> == valid\" or \"<checker> != invalid\", got \(String(reflecting: text))")
                } else {
                    switch MetricThreshold.parse(text) {
                    case .success(let t): s.metricThresholds.append(t)
                    case .failure(let e): r.problem("thresholds[\(i)]", "\(e.message), got \(String(reflecting: text))")
                    }
                }
            }
        }
        return s
    }

    private static func decodeClients(_ node: Node, into s: inout Scenario, reader r: inout NodeReader) {
        guard let m = r.mapping(node, "clients", allowed: ["count", "documents", "protocol"]) else { return }
        if let x = m["count"], let v = r.int(x, "clients.count", range: 1...10_000) { s.clients = v }
        if let x = m["documents"], let v = r.int(x, "clients.documents", range: 1...10_000) { s.documents = v }
        if let x = m["protocol"], let v = r.int(x, "clients.protocol", range: 1...2) { s.protocolVersion = v }
        if s.documents > s.clients {
            r.problem(
                "clients.documents", "\(s.documents) documents for \(s.clients) clients: every document needs a client")
        }
    }

    private static func decodeMix(_ node: Node, into s: inout Scenario, reader r: inout NodeReader) {
        guard let m = r.mapping(node, "mix", allowed: ActionMix.Action.allCases.map(\.rawValue)) else { return }
        var mix = ActionMix()
        for action in ActionMix.Action.allCases {
            if let x = m[action.rawValue], let v = r.int(x, "mix.\(action.rawValue)", range: 0...1_000_000) {
                mix[action] = v
            }
        }
        if !m.isEmpty, mix.weights.allSatisfy({ $0 == 0 }) {
            r.problem("mix", "every weight is zero: clients would never act")
        }
        s.mix = mix
    }

    static func decodeDelay(_ node: Node, _ path: String, reader r: inout NodeReader) -> DelayDistribution? {
        guard let m = r.mapping(node, path, allowed: ["distribution", "min", "max", "mean", "value"]) else {
            return nil
        }
        guard let kindNode = m["distribution"] else {
            r.problem("\(path).distribution", "missing (fixed, uniform or exponential)")
            return nil
        }
        guard let kind = r.choice(kindNode, "\(path).distribution", DelayKind.self, choices: DelayKind.allCases) else {
            return nil
        }
        func field(_ key: String) -> Int? {
            guard let x = m[key] else {
                r.problem("\(path).\(key)", "missing (needed by \(kind.rawValue))"); return nil
            }
            return r.int(x, "\(path).\(key)", range: 0...10_000_000)
        }
        let allowed: [String] =
            switch kind {
            case .fixed: ["distribution", "value"]
            case .uniform: ["distribution", "min", "max"]
            case .exponential: ["distribution", "mean", "max"]
            }
        for key in m.keys.sorted() where !allowed.contains(key) {
            r.problem(
                "\(path).\(key)",
                "not used by a \(kind.rawValue) distribution (allowed: \(allowed.joined(separator: ", ")))")
        }
        switch kind {
        case .fixed:
            return field("value").map { .fixed($0) }
        case .uniform:
            let lo = field("min"), hi = field("max")
            guard let lo, let hi else { return nil }
            guard lo <= hi else { r.problem("\(path).min", "min \(lo) is greater than max \(hi)"); return nil }
            return .uniform(min: lo, max: hi)
        case .exponential:
            let mean = field("mean"), hi = field("max")
            guard let mean, let hi else { return nil }
            guard mean <= hi else { r.problem("\(path).mean", "mean \(mean) is greater than max \(hi)"); return nil }
            return .exponential(mean: mean, max: hi)
        }
    }

    private enum DelayKind: String, CaseIterable { case fixed, uniform, exponential }

    private static func decodeNemesis(_ node: Node, _ path: String, reader r: inout NodeReader) -> NemesisSpec? {
        guard let m = r.mapping(node, path, allowed: ["kind", "every", "at", "duration", "factor"]) else { return nil }
        guard let kindNode = m["kind"] else { r.problem("\(path).kind", "missing"); return nil }
        let kind = r.choice(kindNode, "\(path).kind", NemesisSpec.Kind.self, choices: NemesisSpec.Kind.allCases)
        var every: Int?
        var at: [Int] = []
        if let x = m["every"] { every = r.int(x, "\(path).every", range: 1...1_000_000_000) }
        if let x = m["at"], let items = r.sequence(x, "\(path).at") {
            at = items.enumerated().compactMap { r.int($1, "\(path).at[\($0)]", range: 0...1_000_000_000) }
        }
        if m["every"] == nil, m["at"] == nil {
            r.problem(path, "needs `every` (mean ticks between strikes) or `at` (a list of ticks)")
        }
        if m["every"] != nil, m["at"] != nil { r.problem(path, "give `every` or `at`, not both") }
        var duration = 0
        if let x = m["duration"] {
            duration = r.int(x, "\(path).duration", range: 0...1_000_000_000) ?? 0
        } else {
            r.problem("\(path).duration", "missing")
        }
        var factor = 20
        if let x = m["factor"] {
            if kind != .slowClient { r.problem("\(path).factor", "only a slow-client nemesis has a factor") }
            factor = r.int(x, "\(path).factor", range: 2...10_000) ?? factor
        }
        guard let kind else { return nil }
        return NemesisSpec(kind: kind, every: every, at: at, duration: duration, factor: factor)
    }

    /// A checker threshold (`convergence == valid`) from its text; nil for anything else.
    public static func parseThresholdText(_ text: String) -> Threshold? { parseThreshold(text) }

    static func parseThreshold(_ text: String) -> Threshold? {
        let parts = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard parts.count == 3, let checker = CheckerName(rawValue: parts[0]),
            let relation = Threshold.Relation(rawValue: parts[1]), let verdict = Verdict(rawValue: parts[2])
        else { return nil }
        return Threshold(checker: checker, relation: relation, verdict: verdict)
    }
}
