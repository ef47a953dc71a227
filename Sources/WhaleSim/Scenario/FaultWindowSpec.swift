/// When a catalog fault (``FaultCatalog``) is on during a run: for the whole run, at fixed
/// ticks, or periodically. A scenario's `faults:` list holds these; the simulator switches the
/// fault on and off at the ticks ``FaultWindowSpec/intervals(_:runLength:random:)`` gives
/// (``Scenario/faultIntervals(seed:runLength:)`` with the simulator's stream), and a live runner
/// can do the same on real connections (one tick = 1 ms there).
///
/// ```yaml
/// faults:
///   - client-tie-priority                                             # the whole run
///   - {name: server-applies-resend-twice, at: [2000, 9000], duration: 3000}
///   - {name: remote-cursor-wrong-rule, every: 4000, duration: 1000}   # mean gap (exponential draws)
/// ```
///
/// ```swift
/// FaultWindowSpec.intervals([.init(name: "echo-storm", at: [10, 30], duration: 5)], runLength: 100, random: SimRandom(seed: 7))
/// // [FaultInterval(name: "echo-storm", start: 10, end: 15), FaultInterval(name: "echo-storm", start: 30, end: 35)]
/// ```
public struct FaultWindowSpec: Hashable, Sendable, CustomStringConvertible {
    /// The catalog name (`Fault.rawValue`).
    public var name: String
    /// Ticks at which a window opens (each stays open for `duration`).
    public var at: [Int]
    /// Mean ticks between window starts (exponentially distributed, as a nemesis's `every`).
    public var every: Int?
    /// How long each window stays open; nil: the fault is on for the whole run.
    public var duration: Int?

    public init(name: String, at: [Int] = [], every: Int? = nil, duration: Int? = nil) {
        self.name = name
        self.at = at
        self.every = every
        self.duration = duration
    }

    /// The fault on from the first tick to the end of the run (a plain name in `faults:`).
    public static func wholeRun(_ name: String) -> FaultWindowSpec { FaultWindowSpec(name: name) }

    /// On for the whole run: no duration, or neither `at` nor `every`.
    public var isWholeRun: Bool { duration == nil || (at.isEmpty && every == nil) }

    /// `name` for a whole-run fault, else `name at [2000, 9000] for 3000` or `name every 4000 for 1000`
    /// (the form `run.json` lists).
    public var description: String {
        guard !isWholeRun, let duration else { return name }
        if let every { return "\(name) every \(every) for \(duration)" }
        return "\(name) at [\(at.map(String.init).joined(separator: ", "))] for \(duration)"
    }

    /// The concrete on/off intervals of `windows` in a run of `runLength` ticks: each fault on
    /// from `start` (inclusive) to `end` (exclusive), clipped to `0..<runLength`, overlapping or
    /// touching windows of one fault merged, sorted by start tick then name. A whole-run window
    /// gives `0..<runLength`.
    ///
    /// A periodic window opens first after one draw (plus one tick), then every further draw,
    /// from a child of `random` named by the fault and the window's rank among that fault's periodic
    /// windows (`random` itself is not drawn from): exponential, mean `every`, capped at ten
    /// times that, at least one tick, as a nemesis's strikes are drawn. So the same windows and
    /// seed give the same intervals in the simulator and a live runner, and adding or removing
    /// another fault's window never moves these.
    public static func intervals(_ windows: [FaultWindowSpec], runLength: Int, random: SimRandom) -> [FaultInterval] {
        var byName: [(name: String, spans: [(start: Int, end: Int)])] = []
        func add(_ name: String, _ start: Int, _ end: Int) {
            let start = max(0, start), end = min(runLength, end)
            guard start < end else { return }
            if let k = byName.firstIndex(where: { $0.name == name }) {
                // A periodic window's next span usually overlaps the last: extend it in place.
                if let last = byName[k].spans.last, last.start <= start, start <= last.end {
                    byName[k].spans[byName[k].spans.count - 1].end = max(last.end, end)
                } else {
                    byName[k].spans.append((start, end))
                }
            } else {
                byName.append((name, [(start, end)]))
            }
        }
        var periodicSoFar: [String] = []
        for window in windows {
            guard !window.isWholeRun, let duration = window.duration else {
                add(window.name, 0, runLength)
                continue
            }
            if let every = window.every {
                // The stream's label: the fault's name and how many periodic windows of it came before.
                var label = FNV1a()
                label.feed(window.name)
                label.feed(periodicSoFar.count { $0 == window.name })
                periodicSoFar.append(window.name)
                var stream = random.derive(label.state)
                let gap = DelayDistribution.exponential(mean: every, max: every * 10)
                var start = gap.sample(using: &stream) + 1
                while start < runLength {
                    add(window.name, start, start + duration)
                    start += max(1, gap.sample(using: &stream))
                }
            } else {
                for start in window.at { add(window.name, start, start + duration) }
            }
        }
        var result: [FaultInterval] = []
        for (name, spans) in byName {
            var merged: [(start: Int, end: Int)] = []
            for span in spans.sorted(by: { ($0.start, $0.end) < ($1.start, $1.end) }) {
                if let last = merged.last, span.start <= last.end {
                    merged[merged.count - 1].end = max(last.end, span.end)
                } else {
                    merged.append(span)
                }
            }
            result += merged.map { FaultInterval(name: name, start: $0.start, end: $0.end) }
        }
        return result.sorted { ($0.start, $0.name, $0.end) < ($1.start, $1.name, $1.end) }
    }
}

/// One stretch of ticks during which a catalog fault is on: switched on at `start`, off at `end`.
public struct FaultInterval: Hashable, Sendable, CustomStringConvertible {
    public var name: String
    public var start: Int
    public var end: Int

    public init(name: String, start: Int, end: Int) {
        self.name = name
        self.start = start
        self.end = end
    }

    public var description: String { "\(name) \(start)..<\(end)" }

    /// The intervals as one timeline of switches, by tick; at one tick the faults switching
    /// off come before those switching on, then by name. The simulator schedules exactly
    /// this; a live runner can walk it with a timer.
    public static func switches(_ intervals: [FaultInterval]) -> [FaultSwitch] {
        intervals.flatMap {
            [FaultSwitch(tick: $0.start, name: $0.name, on: true), FaultSwitch(tick: $0.end, name: $0.name, on: false)]
        }
        .sorted { ($0.tick, $0.on ? 1 : 0, $0.name) < ($1.tick, $1.on ? 1 : 0, $1.name) }
    }
}

/// One catalog fault switched on or off at a tick.
public struct FaultSwitch: Hashable, Sendable, CustomStringConvertible {
    public var tick: Int
    public var name: String
    public var on: Bool

    public init(tick: Int, name: String, on: Bool) {
        self.tick = tick
        self.name = name
        self.on = on
    }

    /// `fault NAME on` / `fault NAME off`: the note the simulator records (reports read it).
    public var description: String { "fault \(name) \(on ? "on" : "off")" }
}
