import Histogram

/// An HdrHistogram of latencies in microseconds (3 significant digits, up to 10 minutes),
/// and its exact, portable form for run records: the recorded values with their counts.
/// Re-recording those pairs into an empty histogram of the same shape gives back the same
/// buckets, so shards merge exactly (`whalesim merge`).
public struct LatencyHistogram: Sendable {
    public static let highestTrackableUs: UInt64 = 600_000_000
    public private(set) var histogram = Histogram<UInt64>(lowestDiscernibleValue: 1, highestTrackableValue: highestTrackableUs, numberOfSignificantValueDigits: .three)

    public init() {}

    public mutating func record(us: Int64) {
        _ = histogram.record(UInt64(min(max(us, 1), Int64(Self.highestTrackableUs))))
    }

    public mutating func add(_ other: LatencyHistogram) { histogram.add(other.histogram) }

    public var count: Int { Int(histogram.totalCount) }

    /// The value at a percentile, in milliseconds (nil: no sample).
    public func percentileMs(_ p: Double) -> Double? {
        count == 0 ? nil : Double(histogram.valueAtPercentile(p)) / 1000
    }

    public var maxMs: Double? { count == 0 ? nil : Double(histogram.max) / 1000 }
    public var meanMs: Double? { count == 0 ? nil : histogram.mean / 1000 }

    /// A figure by name: p50, p90, p95, p99, p999, max, mean (ms) or count.
    public func stat(_ name: String) -> Double? {
        switch name {
        case "p50": percentileMs(50)
        case "p90": percentileMs(90)
        case "p95": percentileMs(95)
        case "p99": percentileMs(99)
        case "p999": percentileMs(99.9)
        case "max": maxMs
        case "mean": meanMs
        case "count": Double(count)
        default: nil
        }
    }

    /// `[[value_us, count], ...]` of every non-empty bucket, in value order.
    public var encoded: [[UInt64]] {
        histogram.recordedValues().map { [$0.value, UInt64($0.count)] }
    }

    public init(encoded pairs: [[UInt64]]) throws(RecordError) {
        for pair in pairs {
            guard pair.count == 2, pair[0] <= Self.highestTrackableUs else {
                throw RecordError("a histogram entry must be [value_us, count] with value ≤ \(Self.highestTrackableUs), got \(pair)")
            }
            _ = histogram.record(pair[0], count: pair[1])
        }
    }
}

/// A run record that cannot be read or merged; the message says what and where.
public struct RecordError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
