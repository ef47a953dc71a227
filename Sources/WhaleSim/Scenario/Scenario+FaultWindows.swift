import Yams

extension Scenario {
    /// The fault windows' random stream: a child of the run's seed of its own, so scenarios
    /// without periodic fault windows draw exactly what they drew before.
    static let faultWindowStream: UInt64 = 5_000_005

    /// The concrete intervals during which the scenario's faults are on in a run of `runLength`
    /// ticks from `seed`: the simulator's schedule, for a live runner to replay on real
    /// connections (one tick = 1 ms; ``FaultInterval/switches(_:)`` orders the switching). See
    /// ``FaultWindowSpec/intervals(_:runLength:random:)``. The simulator asks for its safety
    /// phase (`safetyTicks + 1`), closes windows still open at the heal, and never switches a
    /// whole-run fault: those stay on through the liveness phase too.
    public func faultIntervals(seed: UInt64, runLength: Int) -> [FaultInterval] {
        FaultWindowSpec.intervals(
            faultWindows, runLength: runLength, random: SimRandom(seed: seed).derive(Self.faultWindowStream))
    }

    /// Decodes the `faults:` list: plain catalog names (on for the whole run) or windows
    /// `{name: F, at: [t, ...], duration: D}` / `{name: F, every: N, duration: D}`. Every problem
    /// goes to `r`, with its path.
    static func decodeFaultWindows(_ node: Node, reader r: inout NodeReader, knownFaults: [String]) -> [FaultWindowSpec]
    {
        guard let items = r.sequence(node, "faults") else { return [] }
        return items.enumerated().compactMap { i, item in
            decodeFaultWindow(item, "faults[\(i)]", reader: &r, knownFaults: knownFaults)
        }
    }

    private static func decodeFaultWindow(
        _ node: Node, _ path: String, reader r: inout NodeReader, knownFaults: [String]
    ) -> FaultWindowSpec? {
        func known(_ name: String, _ path: String) -> Bool {
            if knownFaults.contains(name) { return true }
            r.problem(path, "unknown fault \(String(reflecting: name)) (see whalesim simulate --list-faults)")
            return false
        }
        switch node {
        case .scalar(let s) where node.tag.description == Tag.Name.str.rawValue:
            guard known(s.string, path) else { return nil }
            return .wholeRun(s.string)
        case .mapping:
            break
        default:
            r.problem(
                path,
                "expected a fault name or {name: F, at: [ticks] or every: N, duration: D}, got \(NodeReader.show(node))"
            )
            return nil
        }
        guard let m = r.mapping(node, path, allowed: ["name", "at", "every", "duration"]) else { return nil }
        var name: String?
        if let x = m["name"] {
            if let v = r.string(x, "\(path).name"), known(v, "\(path).name") { name = v }
        } else {
            r.problem("\(path).name", "missing (a fault from the catalog)")
        }
        var every: Int?
        var at: [Int] = []
        if let x = m["every"] { every = r.int(x, "\(path).every", range: 1...1_000_000_000) }
        if let x = m["at"], let items = r.sequence(x, "\(path).at") {
            if items.isEmpty { r.problem("\(path).at", "empty (give at least one tick)") }
            at = items.enumerated().compactMap { r.int($1, "\(path).at[\($0)]", range: 0...1_000_000_000) }
        }
        if m["every"] == nil, m["at"] == nil {
            r.problem(
                path,
                "needs `at` (a list of ticks) or `every` (mean ticks between windows); a plain name is on for the whole run"
            )
        }
        if m["every"] != nil, m["at"] != nil { r.problem(path, "give `at` or `every`, not both") }
        var duration: Int?
        if let x = m["duration"] {
            duration = r.int(x, "\(path).duration", range: 1...1_000_000_000)
        } else {
            r.problem("\(path).duration", "missing (ticks the fault stays on in each window)")
        }
        guard let name, let duration, every != nil || !at.isEmpty else { return nil }
        return FaultWindowSpec(name: name, at: at, every: every, duration: duration)
    }
}
