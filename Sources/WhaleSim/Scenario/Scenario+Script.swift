import Yams

extension Scenario {
    /// Whether the simulator follows a script instead of drawing a workload from the seed.
    public var isScripted: Bool { script != nil }

    /// Decodes `script:` strictly (every problem with its path). `clients` is the scenario's count.
    static func decodeScript(_ node: Node, clients: Int, reader r: inout NodeReader) -> ScriptSpec? {
        guard let m = r.mapping(node, "script", allowed: ["delivery", "steps"]) else { return nil }
        var spec = ScriptSpec()
        if let x = m["delivery"],
            let v = r.choice(x, "script.delivery", ScriptSpec.Delivery.self, choices: ScriptSpec.Delivery.allCases)
        {
            spec.delivery = v
        }
        guard let stepsNode = m["steps"] else {
            r.problem("script.steps", "missing (a list of {at, client, do, ...})")
            return nil
        }
        guard let items = r.sequence(stepsNode, "script.steps") else { return nil }
        var lastAt = 0
        for (i, item) in items.enumerated() {
            let path = "script.steps[\(i)]"
            guard let step = decodeStep(item, path, clients: clients, reader: &r) else { continue }
            if step.at < lastAt {
                r.problem("\(path).at", "\(step.at) is before the previous step's \(lastAt) (steps are in tick order)")
            }
            lastAt = max(lastAt, step.at)
            spec.steps.append(step)
        }
        return spec
    }

    private static func decodeStep(_ node: Node, _ path: String, clients: Int, reader r: inout NodeReader) -> ScriptSpec
        .Step?
    {
        let keys = ["at", "client", "do", "cause", "position", "delete", "insert", "anchor", "head", "revision"]
        guard let m = r.mapping(node, path, allowed: keys) else { return nil }
        var at: Int?, client: Int?
        if let x = m["at"] {
            at = r.int(x, "\(path).at", range: 0...1_000_000_000)
        } else {
            r.problem("\(path).at", "missing (the tick of the step)")
        }
        // The server's steps name no client.
        let serverStep =
            m["do"].flatMap { node -> String? in if case .scalar(let s) = node { s.string } else { nil } }.map(
                ScriptSpec.Action.serverWords.contains) ?? false
        if serverStep {
            if m["client"] != nil {
                r.problem(
                    "\(path).client",
                    "a server step (\(ScriptSpec.Action.serverWords.joined(separator: ", "))) names no client")
            }
            client = ScriptSpec.Step.server
        } else if let x = m["client"] {
            client = r.int(x, "\(path).client", range: 0...10_000)
            if let c = client, c >= clients {
                r.problem(
                    "\(path).client",
                    "\(c) is not a client of this scenario (clients.count is \(clients), numbered from 0)");
                client = nil
            }
        } else {
            r.problem("\(path).client", "missing (the client's number, from 0)")
        }
        guard let doNode = m["do"] else {
            r.problem("\(path).do", "missing (one of \(ScriptSpec.Action.words.joined(separator: ", ")))"); return nil
        }
        guard let word = r.string(doNode, "\(path).do") else { return nil }
        guard ScriptSpec.Action.words.contains(word) else {
            r.problem(
                "\(path).do",
                "expected one of \(ScriptSpec.Action.words.joined(separator: ", ")), got \(String(reflecting: word))")
            return nil
        }
        let used: [String] =
            switch word {
            case "disconnect": ["cause"]
            case "edit": ["position", "delete", "insert"]
            case "select": ["anchor", "head"]
            case "receive": ["revision"]
            default: []
            }
        for key in m.keys.sorted() where !["at", "client", "do"].contains(key) && !used.contains(key) {
            r.problem(
                "\(path).\(key)",
                "not used by `do: \(word)`\(used.isEmpty ? "" : " (allowed: \(used.joined(separator: ", ")))")")
        }
        func required(_ key: String) -> Int? {
            guard let x = m[key] else { r.problem("\(path).\(key)", "missing (needed by `do: \(word)`)"); return nil }
            return r.int(x, "\(path).\(key)", range: 0...1_000_000_000)
        }
        var action: ScriptSpec.Action?
        switch word {
        case "connect": action = .connect
        case "disconnect":
            var cause = "script"
            if let x = m["cause"], let v = r.string(x, "\(path).cause") { cause = v }
            action = .disconnect(cause: cause)
        case "edit":
            let position = required("position")
            var delete = 0, insert = ""
            if let x = m["delete"] { delete = r.int(x, "\(path).delete", range: 0...1_000_000_000) ?? 0 }
            if let x = m["insert"] { insert = r.string(x, "\(path).insert") ?? "" }
            if delete == 0, insert.isEmpty {
                r.problem(path, "an edit deletes or inserts something (give `delete` > 0 or a non-empty `insert`)")
            }
            if let position { action = .edit(position: position, delete: delete, insert: insert) }
        case "select":
            let anchor = required("anchor")
            var head = anchor
            if let x = m["head"] { head = r.int(x, "\(path).head", range: 0...1_000_000_000) }
            if let anchor, let head { action = .select(anchor: anchor, head: head) }
        case "arrive": action = .arrive
        case "receive": if let v = required("revision") { action = .receive(revision: v) }
        case "slow": action = .slow(true)
        case "unslow": action = .slow(false)
        case "partition": action = .partition(true)
        case "unpartition": action = .partition(false)
        case "server-crash": action = .serverCrash(powerLoss: false)
        case "power-loss": action = .serverCrash(powerLoss: true)
        default: action = .serverStart
        }
        guard let at, let client, let action else { return nil }
        return ScriptSpec.Step(at: at, client: client, action: action)
    }
}
