import Foundation

/// What `whalesim report --compare` counts as a regression, chosen so that two runs of one
/// binary pass (docs/run-record.md, "Comparing runs"):
///
/// - A **maximum is shown, never judged**: it is one sample, the slowest hiccup of the machine.
/// - A **percentile p is judged only with enough samples**: every run on both sides needs at
///   least `tailSamples × 100 / (100 − p)` of that metric (50 × 2 = 100 for p50, 500 for p90,
///   5,000 for p99), i.e. about `tailSamples` samples beyond the percentile. Fifty, not ten,
///   because live samples come in clusters: one stall of a busy machine delays every op in
///   flight at once, and one op's broadcast gives a remote-apply sample per member. With ten
///   (3,066 remote applies judged at p99) two runs of one binary differed by +59 % at p99, and
///   20 connects by +39 % at p50, on a loaded 2-core machine.
/// - A **growth is a regression only past every allowance**: more than `maxRegression` of A's
///   value, more than the absolute `floor` (in the metric's unit: 2 ms for live runs, 2 ticks
///   for simulated ones) and more than HdrHistogram's precision (3 significant digits, 0.1 %).
/// - With **several runs on a side** (`run --repeat` directories), A's reference is its worst
///   run and B's figure its median run: B regressed only when its typical run is slower than
///   A's slowest by more than the allowance. One run on a side is its own worst and median.
///
/// ```swift
/// var rules = ComparisonRules()
/// rules.floor = 5                      // ignore changes under 5 ms
/// RunComparison(a: sideA, b: sideB, rules: rules).regressed
/// ```
public struct ComparisonRules: Codable, Sendable, Equatable {
    /// The relative growth allowed (0.1 = 10 %).
    public var maxRegression: Double
    /// Growth under this many units (ms or ticks) is never a regression.
    public var floor: Double
    /// Samples a percentile needs beyond it: p needs `tailSamples × 100 / (100 − p)` in all.
    public var tailSamples: Int
    /// The histograms' relative precision (3 significant digits).
    public var precision: Double

    public static let defaultFloor = 2.0
    public static let defaultTailSamples = 50

    public init(
        maxRegression: Double = 0.1, floor: Double = ComparisonRules.defaultFloor,
        tailSamples: Int = ComparisonRules.defaultTailSamples, precision: Double = 0.001
    ) {
        self.maxRegression = maxRegression
        self.floor = floor
        self.tailSamples = tailSamples
        self.precision = precision
    }

    /// The samples percentile `p` (0 < p < 100) needs to be judged: 20 for p50, 100 for p90, 1,000 for p99.
    public func minimumSamples(percentile p: Double) -> Int {
        guard p > 0, p < 100 else { return .max }
        // Rounded to 6 decimals first: 100 − 99.9 is not exactly 0.1 in binary.
        let exact = ((Double(tailSamples) * 100 / (100 - p)) * 1e6).rounded() / 1e6
        return Int(exact.rounded(.up))
    }

    /// How much B may exceed A (same unit) before it counts: the largest of the relative limit,
    /// the floor and the histogram precision.
    public func allowance(over a: Double) -> Double {
        Swift.max(floor, maxRegression * abs(a), precision * abs(a))
    }

    /// "p99" → 99; nil for "max" or anything else.
    static func percentile(_ stat: String) -> Double? {
        guard stat.hasPrefix("p"), let v = Double(stat.dropFirst()), v > 0, v < 100 else { return nil }
        return v
    }

    /// The sentence the table and the page print under the verdict.
    public var description: String {
        let pct = { (v: Double) in String(format: "%g %%", v * 100) }
        return
            "regression = growth past \(pct(maxRegression)), past \(String(format: "%g", floor)) (ms or ticks) and past \(pct(precision)) precision; "
            + "a percentile p is judged with ≥ \(tailSamples)×100/(100−p) samples in every run (p50 \(minimumSamples(percentile: 50)), p90 \(minimumSamples(percentile: 90)), p99 \(minimumSamples(percentile: 99))); maxima are shown, not judged; "
            + "with several runs a side, B's median run against A's worst"
    }
}

/// One side of a comparison: a run directory (one run) or a repeat directory (several).
public struct ComparisonSide: Sendable {
    public var path: String
    public var runs: [RunSummary]

    public init(path: String, runs: [RunSummary]) {
        self.path = path
        self.runs = runs
    }

    public init(path: String, summary: RunSummary) {
        self.init(path: path, runs: [summary])
    }
}

extension Array where Element == Double {
    /// The median (the mean of the middle two for an even count); nil when empty.
    var median: Double? {
        guard !isEmpty else { return nil }
        let s = sorted()
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }
}
