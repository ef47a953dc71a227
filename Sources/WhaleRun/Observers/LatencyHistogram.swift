import Histogram
import WhaleRecord

/// An HdrHistogram of latencies in microseconds (3 significant digits, up to 10 minutes),
/// and its exact, portable form for run records: the recorded values with their counts.
/// Re-recording those pairs into an empty histogram of the same shape gives back the same
/// buckets, so shards merge exactly (`whalesim merge`).
///
/// A dense histogram of this shape is about 160 KB of counts, whatever it holds. A live run keeps
/// one per metric per second for its charts and scoped thresholds, which grew the runner by about
/// a megabyte a second (docs/decisions/0031-runner-memory-bounded-through-a-long-load.md); a finished
/// second is therefore ``compacted()`` to its recorded pairs (a few hundred bytes), and made dense again only while
/// something records into it, adds it up or reads a percentile from it.
public struct LatencyHistogram: Sendable {
    public static let highestTrackableUs: UInt64 = 600_000_000
    private var dense: Histogram<UInt64>?
    /// The compact form, used when `dense` is nil: the recorded values (ascending) and their
    /// counts as varints, each value as its distance from the one before. A busy second of
    /// `op_remote_apply` holds a few thousand distinct values: 16 bytes a pair grew a long run's
    /// runner by some 90 KB a second; this takes 2 to 4 (issue 21's flat runner).
    private var pairs: [UInt8] = []
    private var sparseTotal = 0

    public init() {}

    private static func empty() -> Histogram<UInt64> {
        Histogram<UInt64>(
            lowestDiscernibleValue: 1, highestTrackableValue: highestTrackableUs, numberOfSignificantValueDigits: .three
        )
    }

    /// The dense histogram (built from the pairs when compact).
    public var histogram: Histogram<UInt64> {
        if let dense { return dense }
        var h = Self.empty()
        forEachPair { v, c in _ = h.record(v, count: c) }
        return h
    }

    /// Bytes the compact form holds (0 while dense).
    var compactByteCount: Int { pairs.count }

    /// The compact form's bytes and sample count, compacting first (what a spilled second keeps).
    var compactForm: (pairs: [UInt8], count: Int) {
        let c = compacted()
        return (c.pairs, c.sparseTotal)
    }

    /// A compact histogram from ``compactForm``'s bytes, as written: the caller checked that the
    /// bytes are whole varint pairs.
    init(compactPairs: [UInt8], count: Int) {
        pairs = compactPairs
        sparseTotal = count
    }

    /// Calls `body` with each compact (value, count) pair, in value order.
    private func forEachPair(_ body: (UInt64, UInt64) -> Void) {
        var at = 0, value: UInt64 = 0
        while at < pairs.count {
            value += pairs.readVarint(at: &at)
            body(value, pairs.readVarint(at: &at))
        }
    }

    private mutating func putPair(_ value: UInt64, _ count: UInt64, after previous: UInt64) {
        pairs.appendVarint(value - previous)
        pairs.appendVarint(count)
    }

    private mutating func makeDense() {
        guard dense == nil else { return }
        dense = histogram
        pairs = []
        sparseTotal = 0
    }

    /// The same histogram in its dense form: read several figures from a compact one through this,
    /// since each figure read from a compact histogram builds the dense one again.
    public func densified() -> LatencyHistogram {
        var out = self
        out.makeDense()
        return out
    }

    /// The same histogram in its compact form (recorded pairs only).
    public func compacted() -> LatencyHistogram {
        guard let dense else { return self }
        var out = LatencyHistogram()
        out.dense = nil
        var previous: UInt64 = 0
        for r in dense.recordedValues() {
            let v = Self.portable(r.value)
            out.putPair(v, UInt64(r.count), after: previous)
            previous = v
        }
        out.sparseTotal = Int(dense.totalCount)
        // Appending doubled the array's capacity as it went: up to half of it unused, held for
        // every second of the run. A copy holds just the bytes.
        out.pairs = Array(out.pairs[...])
        return out
    }

    public mutating func record(us: Int64) {
        if case .none = dense { makeDense() }
        _ = dense!.record(UInt64(min(max(us, 1), Int64(Self.highestTrackableUs))))
    }

    /// Records each of `values` (what a loop's buffer of samples adds at once).
    public mutating func record(contentsOf values: [Int64]) {
        if case .none = dense { makeDense() }
        for us in values { _ = dense!.record(UInt64(min(max(us, 1), Int64(Self.highestTrackableUs)))) }
    }

    public mutating func add(_ other: LatencyHistogram) {
        makeDense()
        if let o = other.dense {
            dense!.add(o)
        } else {
            other.forEachPair { v, c in _ = dense!.record(v, count: c) }
        }
    }

    public var count: Int { dense.map { Int($0.totalCount) } ?? sparseTotal }

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
        if let dense { return dense.recordedValues().map { [Self.portable($0.value), UInt64($0.count)] } }
        var out: [[UInt64]] = []
        forEachPair { out.append([$0, $1]) }
        return out
    }

    /// A recorded value as the portable form writes it. The top bucket's value (a sample clamped
    /// to 10 minutes) reads back as 600,309,759 µs, past what the histogram takes, so re-recording
    /// it failed (and a record holding it could not be read back); the limit itself lands in the
    /// same bucket.
    static func portable(_ value: UInt64) -> UInt64 { min(value, highestTrackableUs) }

    public init(encoded pairs: [[UInt64]]) throws(RecordError) {
        var h = Self.empty()
        for pair in pairs {
            // Up to twice the limit: the top bucket's value, as records written before `portable` hold it.
            guard pair.count == 2, pair[0] <= 2 * Self.highestTrackableUs else {
                throw RecordError(
                    "a histogram entry must be [value_us, count] with value ≤ \(Self.highestTrackableUs), got \(pair)")
            }
            _ = h.record(Self.portable(pair[0]), count: pair[1])
        }
        dense = h
    }
}

/// A run record that cannot be read or merged; the message says what and where.
public struct RecordError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
