/// A histogram with fixed upper bounds, in a metric's base unit (seconds for latencies): counts
/// per bucket, the sum and the count, as Prometheus exposes them. The run fills it from its own
/// record (each second, from its HdrHistograms: ``add(_:count:)``), so the hot path is untouched.
///
/// ```swift
/// var ack = TelemetryHistogram()          // the latency buckets, 0.5 ms to 60 s
/// ack.record(0.012)
/// ack.cumulativeCounts                    // what `_bucket{le=...}` shows
/// ```
public struct TelemetryHistogram: Sendable, Hashable, Codable {
    /// Upper bounds, ascending, without +Inf (always implied, and always exposed).
    public let bounds: [Double]
    /// Observations per bucket (not cumulative); one more than `bounds`: the last is above them all.
    public private(set) var counts: [UInt64]
    public private(set) var sum: Double
    public private(set) var count: UInt64

    /// Latency buckets in seconds that resolve the thresholds people set, sub-millisecond to a
    /// minute: 0.5 ms, 1 ms, 2.5 ms, 5 ms, 10 ms, 25 ms, 50 ms, 100 ms, 250 ms, 500 ms, 1 s, 2.5 s,
    /// 5 s, 10 s, 30 s, 60 s (+Inf above). A threshold such as `p99 < 50ms` falls on a bound.
    public static let latencyBounds: [Double] = [
        0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60,
    ]

    public init(bounds: [Double] = TelemetryHistogram.latencyBounds) {
        precondition(zip(bounds, bounds.dropFirst()).allSatisfy { $0 < $1 }, "bounds must ascend")
        self.bounds = bounds
        counts = Array(repeating: 0, count: bounds.count + 1)
        sum = 0
        count = 0
    }

    /// Counts one observation.
    public mutating func record(_ value: Double) { add(value, count: 1) }

    /// Counts `count` observations of `value` (an HdrHistogram's recorded value and its count).
    /// A value equal to a bound falls in that bound's bucket (`le` is "less or equal").
    public mutating func add(_ value: Double, count n: UInt64) {
        guard n > 0 else { return }
        var low = 0
        var high = bounds.count
        while low < high {
            let mid = (low + high) / 2
            if bounds[mid] < value { low = mid + 1 } else { high = mid }
        }
        counts[low] += n
        count += n
        sum += value * Double(n)
    }

    /// Adds another histogram with the same bounds (shards, or clients, merged exactly).
    public mutating func merge(_ other: TelemetryHistogram) {
        precondition(other.bounds == bounds, "merging histograms with different bounds")
        for index in counts.indices { counts[index] += other.counts[index] }
        sum += other.sum
        count += other.count
    }

    /// Cumulative counts, one per bound and a last one for +Inf (equal to `count`).
    public var cumulativeCounts: [UInt64] {
        var running: UInt64 = 0
        return counts.map {
            running += $0
            return running
        }
    }
}
