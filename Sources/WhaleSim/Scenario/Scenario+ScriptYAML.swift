extension Scenario {
    /// The scenario as a scripted scenario file (docs/scripted-scenarios.md) that
    /// ``Scenario/decode(yaml:source:knownFaults:)`` reads back to an equal script: what
    /// `whalesim reproduce` writes. Only notes (no model), whole-run faults by name.
    /// `comments` go on top, one `# ` line each.
    public func scriptedYAML(comments: [String] = []) -> String {
        var out = comments.map { "# " + $0 }
        out.append("name: \(name)")
        if !description.isEmpty { out.append("description: \(Self.quoted(description))") }
        out.append("mode: simulate")
        out.append("seed: \(seed)")
        out.append("clients: {count: \(clients), documents: \(documents), protocol: \(protocolVersion)}")
        out.append("text: {alphabet: \(alphabet.rawValue), initial: \(Self.quoted(initialText))}")
        out.append("ticks: {liveness-budget: \(livenessBudget)}")
        out.append("network: {delay: \(Self.delayYAML(delay)), queue-bound: \(queueBound)}")
        if !faults.isEmpty { out.append("faults: [\(faults.joined(separator: ", "))]") }
        if storageSync != .full { out.append("storage: {synchronous: \(storageSync.rawValue)}") }
        out.append("checkers: [\(checkers.map(\.rawValue).joined(separator: ", "))]")
        if !thresholds.isEmpty {
            out.append("thresholds: [\(thresholds.map { Self.quoted($0.description) }.joined(separator: ", "))]")
        }
        let script = script ?? ScriptSpec()
        out.append("script:")
        out.append("  delivery: \(script.delivery.rawValue)")
        out.append(script.steps.isEmpty ? "  steps: []" : "  steps:")
        for step in script.steps { out.append("    - " + Self.stepYAML(step)) }
        return out.joined(separator: "\n") + "\n"
    }

    /// One step for people: `t=12 c00 edit 0+0 "x"` (clients named as the simulator names them).
    public static func stepLine(_ step: ScriptSpec.Step, clients: Int) -> String {
        let width = max(2, String(max(0, clients - 1)).count)
        let n = String(step.client)
        let name =
            step.client == ScriptSpec.Step.server
            ? "server" : "c" + String(repeating: "0", count: max(0, width - n.count)) + n
        let detail: String =
            switch step.action {
            case .connect, .arrive, .slow, .partition, .serverCrash, .serverStart: ""
            case .disconnect(let cause): " (\(cause))"
            case .edit(let p, let d, let text): " at \(p) delete \(d) insert \(quoted(text))"
            case .select(let a, let h): " \(a)..\(h)"
            case .receive(let r): " up to revision \(r)"
            }
        return "t=\(step.at) \(name) \(step.action.word)\(detail)"
    }

    static func stepYAML(_ step: ScriptSpec.Step) -> String {
        var fields =
            step.action.isServerStep
            ? ["at: \(step.at)", "do: \(step.action.word)"]
            : ["at: \(step.at)", "client: \(step.client)", "do: \(step.action.word)"]
        switch step.action {
        case .connect, .arrive, .slow, .partition, .serverCrash, .serverStart: break
        case .disconnect(let cause): fields.append("cause: \(quoted(cause))")
        case .edit(let position, let delete, let insert):
            fields.append("position: \(position)")
            if delete > 0 { fields.append("delete: \(delete)") }
            if !insert.isEmpty { fields.append("insert: \(quoted(insert))") }
        case .select(let anchor, let head):
            fields.append("anchor: \(anchor)")
            if head != anchor { fields.append("head: \(head)") }
        case .receive(let revision): fields.append("revision: \(revision)")
        }
        return "{" + fields.joined(separator: ", ") + "}"
    }

    static func delayYAML(_ delay: DelayDistribution) -> String {
        switch delay {
        case .fixed(let n): "{distribution: fixed, value: \(n)}"
        case .uniform(let lo, let hi): "{distribution: uniform, min: \(lo), max: \(hi)}"
        case .exponential(let mean, let cap): "{distribution: exponential, mean: \(mean), max: \(cap)}"
        }
    }

    /// A YAML double-quoted string: `"` and `\` escaped, control characters as escapes, every
    /// other scalar as itself (the file is UTF-8).
    static func quoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value)
                    || scalar.value == 0x2028 || scalar.value == 0x2029 || scalar.value == 0xFEFF
                {
                    let hex = String(scalar.value, radix: 16, uppercase: true)
                    out += "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
