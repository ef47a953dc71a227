import Foundation

/// One second of the dashboard's charts: clients, ops/s and the op→ack and op→remote-apply
/// percentiles, as the page draws them. The endpoint keeps the run's last ten minutes of them
/// (``TrendLog``) and sends them to a page that opens mid-run (`event: history`), so its charts
/// start at the run's beginning, not at the moment the page was opened.
struct TrendPoint: Encodable, Equatable {
    struct Percentiles: Encodable, Equatable {
        var p50: Double?
        var p95: Double?
        var p99: Double?
    }
    var t: Double
    var clients: Double
    /// Ops a second since the previous point (nil for the first).
    var ops: Double?
    var ack: Percentiles
    var apply: Percentiles

    /// The point `snapshot` makes after `previous` (the one published a second before).
    init(_ snapshot: TelemetrySnapshot, after previous: TelemetrySnapshot?) {
        t = snapshot.status.elapsedSeconds
        clients = Self.total(snapshot, MetricCatalog.clientsConnected)
        if let previous {
            let dt = snapshot.status.elapsedSeconds - previous.status.elapsedSeconds
            let done = Self.total(snapshot, MetricCatalog.ops) - Self.total(previous, MetricCatalog.ops)
            ops = dt > 0 ? max(0, done / max(0.001, dt)) : nil
        }
        ack = Self.percentiles(snapshot, previous, MetricCatalog.opAck)
        apply = Self.percentiles(snapshot, previous, MetricCatalog.opRemoteApply)
    }

    private static func total(_ snapshot: TelemetrySnapshot, _ descriptor: MetricDescriptor) -> Double {
        snapshot.families.first { $0.descriptor.name == descriptor.name }?.series.reduce(0) { $0 + $1.value } ?? 0
    }

    /// The run's exact quantiles of the last second when the snapshot has them, else estimates
    /// from the bucket counts since `previous`, as the page (and `histogram_quantile`) makes them.
    private static func percentiles(
        _ snapshot: TelemetrySnapshot, _ previous: TelemetrySnapshot?, _ descriptor: MetricDescriptor
    ) -> Percentiles {
        guard let series = snapshot.series(descriptor), let histogram = series.histogram else { return Percentiles() }
        if let q = series.quantiles, !q.isEmpty { return Percentiles(p50: q["0.5"], p95: q["0.95"], p99: q["0.99"]) }
        let before = previous?.series(descriptor)?.histogram
        return Percentiles(
            p50: estimate(histogram, since: before, 0.5), p95: estimate(histogram, since: before, 0.95),
            p99: estimate(histogram, since: before, 0.99))
    }

    /// Quantile `q` of what `now` counted since `before` (linear within a bucket).
    static func estimate(_ now: TelemetryHistogram, since before: TelemetryHistogram?, _ q: Double) -> Double? {
        var cumulative = now.cumulativeCounts.map { Double($0) }  // not map(Double.init): that is init(bitPattern:)
        if let before, before.bounds == now.bounds {
            for (i, c) in before.cumulativeCounts.enumerated() { cumulative[i] -= Double(c) }
        }
        guard let total = cumulative.last, total > 0 else { return nil }
        let rank = q * total
        for (i, c) in cumulative.enumerated() where c >= rank {
            if i >= now.bounds.count { return now.bounds.last }
            let low = i == 0 ? 0 : now.bounds[i - 1]
            let below = i == 0 ? 0 : cumulative[i - 1]
            return low + (now.bounds[i] - low) * (rank - below) / max(1, c - below)
        }
        return nil
    }
}

/// The points of the run so far (the last ``capacity``), oldest first, and the frame that
/// hands them to a page that joins late.
struct TrendLog {
    let capacity: Int
    private(set) var points: [TrendPoint] = []
    private var previous: TelemetrySnapshot?

    init(capacity: Int = 600) { self.capacity = capacity }

    /// Adds the point `snapshot` makes; a snapshot that is not later than the last adds none.
    mutating func add(_ snapshot: TelemetrySnapshot) {
        if let last = points.last, snapshot.status.elapsedSeconds <= last.t { return }
        points.append(TrendPoint(snapshot, after: previous))
        previous = snapshot
        if points.count > capacity { points.removeFirst(points.count - capacity) }
    }

    /// The points as a server-sent event named `history` (nil while there are none).
    var sse: String? {
        guard !points.isEmpty else { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "+Inf", negativeInfinity: "-Inf", nan: "NaN")
        guard let data = try? encoder.encode(points) else { return nil }
        return "event: history\ndata: " + String(decoding: data, as: UTF8.self) + "\n\n"
    }
}
