import Foundation
import Yams

extension NodeReader {
    /// A duration in milliseconds: an integer (ms) or a string with a unit: `500ms`, `30s`, `2m`.
    mutating func duration(_ node: Node, _ path: String, range: ClosedRange<Int> = 0...86_400_000) -> Int? {
        if case .scalar = node, node.tag.description == Tag.Name.int.rawValue {
            return int(node, path, range: range)
        }
        guard case .scalar(let s) = node else {
            problem(path, "expected a duration (e.g. 500ms, 30s, 2m), got \(Self.show(node))")
            return nil
        }
        let ms: Int
        switch DurationText.parse(s.string.trimmingCharacters(in: .whitespaces)) {
        // Past any range (and past Int, which would trap): out of range below, with the text as written.
        case .milliseconds(let value): ms = value < 1e15 ? Int(value.rounded()) : Int.max
        case .noUnit:
            problem(path, "expected a duration with a unit (ms, s or m), got \(String(reflecting: s.string))")
            return nil
        case .notANumber:
            problem(path, "expected a duration (e.g. 500ms, 30s, 2m), got \(String(reflecting: s.string))")
            return nil
        }
        guard range.contains(ms) else {
            problem(path, "\(s.string) is out of range \(range.lowerBound)...\(range.upperBound) ms")
            return nil
        }
        return ms
    }

    mutating func bool(_ node: Node, _ path: String) -> Bool? {
        guard case .scalar(let s) = node, node.tag.description == Tag.Name.bool.rawValue else {
            problem(path, "expected true or false, got \(Self.show(node))")
            return nil
        }
        return ["true", "yes", "on"].contains(s.string.lowercased())
    }

    mutating func number(_ node: Node, _ path: String, range: ClosedRange<Double>) -> Double? {
        guard case .scalar(let s) = node,
            [Tag.Name.int.rawValue, Tag.Name.float.rawValue].contains(node.tag.description),
            let v = Double(s.string.replacingOccurrences(of: "_", with: "")), v.isFinite
        else {
            problem(path, "expected a number, got \(Self.show(node))")
            return nil
        }
        guard range.contains(v) else {
            problem(path, "\(s.string) is out of range \(range.lowerBound)...\(range.upperBound)")
            return nil
        }
        return v
    }
}

extension Scenario {
    static let liveKeys = [
        "server", "salesforce", "duration", "load", "think-time", "keystroke", "import", "network-faults", "quiescence",
        "abort-on-fail", "lag-bound", "foreign-cpu-bound", "slow-client-queue", "recorder-visits", "timer-grid",
        "runner-loop",
    ]

    /// The `live:` section (see ``LiveSpec``), every problem reported with the rest.
    static func decodeLive(_ node: Node, reader r: inout NodeReader) -> LiveSpec? {
        guard let m = r.mapping(node, "live", allowed: liveKeys) else { return nil }
        var spec = LiveSpec()
        func target(_ key: String) -> LiveSpec.Target? {
            guard let x = m[key], let text = r.string(x, "live.\(key)") else { return nil }
            if text == "embedded" { return .embedded }
            guard let url = URL(string: text), let scheme = url.scheme, ["http", "https"].contains(scheme),
                url.host != nil
            else {
                r.problem("live.\(key)", "expected embedded or an http(s) URL, got \(String(reflecting: text))")
                return nil
            }
            return .url(text.hasSuffix("/") ? String(text.dropLast()) : text)
        }
        if let t = target("server") { spec.server = t }
        if let t = target("salesforce") { spec.salesforce = t }
        if let x = m["duration"], let v = r.duration(x, "live.duration", range: 1...86_400_000) { spec.durationMs = v }
        if let x = m["load"], let v = decodeLoad(x, reader: &r) { spec.load = v }
        if let x = m["think-time"], let v = decodeDelay(x, "live.think-time", reader: &r) { spec.thinkTime = v }
        if let x = m["keystroke"], let v = decodeDelay(x, "live.keystroke", reader: &r) { spec.keystroke = v }
        if let x = m["import"], let i = r.mapping(x, "live.import", allowed: ["pages", "filters"]) {
            if let p = i["pages"], let v = r.int(p, "live.import.pages", range: 0...100) { spec.importPages = v }
            if let f = i["filters"], let items = r.sequence(f, "live.import.filters") {
                let allowed = ["Industry", "BillingState", "BillingCity", "Type", "Name"]
                spec.importFilters = items.enumerated().compactMap { i, n in
                    guard let v = r.string(n, "live.import.filters[\(i)]") else { return nil }
                    guard allowed.contains(v) else {
                        r.problem(
                            "live.import.filters[\(i)]",
                            "unknown Account filter field \(String(reflecting: v)) (allowed: \(allowed.joined(separator: ", ")))"
                        )
                        return nil
                    }
                    return v
                }
            }
        }
        if let x = m["network-faults"], let items = r.sequence(x, "live.network-faults") {
            spec.networkFaults = items.enumerated().compactMap {
                decodeNetworkFault($1, "live.network-faults[\($0)]", reader: &r)
            }
        }
        if let x = m["quiescence"], let v = r.duration(x, "live.quiescence", range: 100...3_600_000) {
            spec.quiescenceMs = v
        }
        if let x = m["abort-on-fail"], let v = r.bool(x, "live.abort-on-fail") { spec.abortOnFail = v }
        if let x = m["lag-bound"], let v = r.duration(x, "live.lag-bound", range: 1...60_000) { spec.lagBoundMs = v }
        if let x = m["foreign-cpu-bound"] {
            // `off` (YAML reads it as false): no second is contended; otherwise a number of cores.
            if case .scalar = x, x.tag.description == Tag.Name.bool.rawValue {
                if r.bool(x, "live.foreign-cpu-bound") == false {
                    spec.foreignCPUBoundCores = nil
                } else {
                    r.problem("live.foreign-cpu-bound", "expected a number of cores (e.g. 0.25) or off, got true")
                }
            } else if let v = r.number(x, "live.foreign-cpu-bound", range: 0.01...4096) {
                spec.foreignCPUBoundCores = v
            }
        }
        if let x = m["recorder-visits"], let v = r.duration(x, "live.recorder-visits", range: 20...60_000) {
            spec.recorderVisitEveryMs = v
        }
        if let x = m["timer-grid"], let v = r.duration(x, "live.timer-grid", range: 0...100) { spec.timerGridMs = v }
        if let x = m["runner-loop"],
            let v = r.choice(x, "live.runner-loop", RunnerLoop.self, choices: RunnerLoop.allCases)
        {
            spec.runnerLoop = v
        }
        if let x = m["slow-client-queue"], let v = r.int(x, "live.slow-client-queue", range: 0...1_000_000) {
            if case .url(let u) = spec.server {
                r.problem(
                    "live.slow-client-queue", "configures the embedded server only; the server at \(u) has its own")
            } else {
                spec.slowClientQueue = v
            }
        }
        return spec
    }

    private enum ProfileKind: String, CaseIterable { case constant, ramp, arrival, stages }

    private static func decodeLoad(_ node: Node, reader r: inout NodeReader) -> LoadProfile? {
        guard let m = r.mapping(node, "live.load", allowed: ["profile", "ramp-up", "rate", "stages"]) else {
            return nil
        }
        guard let k = m["profile"] else {
            r.problem("live.load.profile", "missing (constant, ramp, arrival or stages)")
            return nil
        }
        guard let kind = r.choice(k, "live.load.profile", ProfileKind.self, choices: ProfileKind.allCases) else {
            return nil
        }
        let allowed: [String] =
            switch kind {
            case .constant: ["profile"]
            case .ramp: ["profile", "ramp-up"]
            case .arrival: ["profile", "rate"]
            case .stages: ["profile", "stages"]
            }
        for key in m.keys.sorted() where !allowed.contains(key) {
            r.problem(
                "live.load.\(key)",
                "not used by the \(kind.rawValue) profile (allowed: \(allowed.joined(separator: ", ")))")
        }
        switch kind {
        case .constant:
            return .constant
        case .ramp:
            guard let x = m["ramp-up"] else { r.problem("live.load.ramp-up", "missing (e.g. 10s)"); return nil }
            return r.duration(x, "live.load.ramp-up").map { .ramp(upMs: $0) }
        case .arrival:
            guard let x = m["rate"] else { r.problem("live.load.rate", "missing (new clients per second)"); return nil }
            return r.number(x, "live.load.rate", range: 0.001...100_000).map { .arrival(perSecond: $0) }
        case .stages:
            guard let x = m["stages"] else {
                r.problem("live.load.stages", "missing (a list of {duration, clients})"); return nil
            }
            guard let items = r.sequence(x, "live.load.stages") else { return nil }
            if items.isEmpty { r.problem("live.load.stages", "needs at least one stage"); return nil }
            var stages: [LoadStage] = []
            for (i, item) in items.enumerated() {
                let path = "live.load.stages[\(i)]"
                guard let s = r.mapping(item, path, allowed: ["duration", "clients"]) else { continue }
                guard let d = s["duration"], let c = s["clients"] else {
                    r.problem(path, "needs duration and clients"); continue
                }
                if let d = r.duration(d, "\(path).duration", range: 1...86_400_000),
                    let c = r.int(c, "\(path).clients", range: 0...10_000)
                {
                    stages.append(LoadStage(durationMs: d, clients: c))
                }
            }
            return stages.count == items.count ? .stages(stages) : nil
        }
    }

    private static func decodeNetworkFault(_ node: Node, _ path: String, reader r: inout NodeReader)
        -> NetworkFaultSpec?
    {
        guard
            let m = r.mapping(
                node, path, allowed: ["kind", "at", "duration", "clients", "ms", "jitter", "bytes-per-second"])
        else { return nil }
        guard let k = m["kind"] else {
            r.problem(
                "\(path).kind", "missing (\(NetworkFaultSpec.Kind.allCases.map(\.rawValue).joined(separator: ", ")))");
            return nil
        }
        let kind = r.choice(k, "\(path).kind", NetworkFaultSpec.Kind.self, choices: NetworkFaultSpec.Kind.allCases)
        var at: [Int] = []
        if let x = m["at"], let items = r.sequence(x, "\(path).at") {
            at = items.enumerated().compactMap { r.duration($1, "\(path).at[\($0)]") }
            if items.isEmpty { r.problem("\(path).at", "needs at least one start time") }
        } else if m["at"] == nil {
            r.problem("\(path).at", "missing (a list of start times, e.g. [5s, 20s])")
        }
        var duration = 0
        if let x = m["duration"] {
            duration = r.duration(x, "\(path).duration") ?? 0
        } else if kind != .drop {
            r.problem("\(path).duration", "missing")
        }
        var percent = 100
        if let x = m["clients"] { percent = r.int(x, "\(path).clients", range: 1...100) ?? 100 }
        var spec = NetworkFaultSpec(kind: kind ?? .latency, at: at, durationMs: duration, clientsPercent: percent)
        func only(_ key: String, for kinds: [NetworkFaultSpec.Kind]) -> Node? {
            guard let x = m[key] else { return nil }
            if let kind, !kinds.contains(kind) {
                r.problem("\(path).\(key)", "only \(kinds.map(\.rawValue).joined(separator: " or ")) has \(key)");
                return nil
            }
            return x
        }
        if let x = only("ms", for: [.latency]) { spec.latencyMs = r.duration(x, "\(path).ms", range: 0...600_000) ?? 0 }
        if let x = only("jitter", for: [.latency]) {
            spec.jitterMs = r.duration(x, "\(path).jitter", range: 0...600_000) ?? 0
        }
        if let x = only("bytes-per-second", for: [.bandwidth]) {
            spec.bytesPerSecond = r.int(x, "\(path).bytes-per-second", range: 1...1_000_000_000) ?? 0
        }
        if kind == .latency, m["ms"] == nil, m["jitter"] == nil {
            r.problem(path, "a latency fault needs ms or jitter")
        }
        if kind == .bandwidth, m["bytes-per-second"] == nil { r.problem("\(path).bytes-per-second", "missing") }
        return kind == nil ? nil : spec
    }
}
