import Foundation
import NIOConcurrencyHelpers
import WhaleLoad
import WhaleReports

/// Everything a live run measures, safe to feed from any thread: one HdrHistogram per latency
/// for the whole run and one per metric per second (for the percentile-over-time charts),
/// counters, errors by kind and connected clients per second.
public final class LiveMetrics: Sendable {
    /// The latencies measured (keys of `run.json`'s `histograms` and of the series).
    /// `op_ack_resent` / `op_remote_apply_resent`: ops whose ack crossed a drop of their own
    /// client (measured apart, so `op_ack` says what the server took). `runner_lag`: how late the
    /// load generator's own timers and event loops ran against plan (its saturation).
    public static let latencyNames = [
        "op_ack", "op_ack_resent", "op_remote_apply", "op_remote_apply_resent", "connect", "login", "graphql", "soql",
        "converge", "runner_lag",
    ]
    public static let bucketMs = 1000

    struct State {
        var total: [String: LatencyHistogram] = [:]
        var buckets: [Int: [String: LatencyHistogram]] = [:]
        var counters: [String: [Int: Int]] = [:]
        var errors: [String: [Int: Int]] = [:]
        var connected = 0
        var connectedAt: [Int: Int] = [:]
        var errorTotal = 0
        /// Requests and ops attempted, the denominator of `errors.rate`.
        var attempts = 0
        /// Server outages under way on purpose (server-restart windows).
        var outages = 0
        /// Connects that failed while this process was out of descriptors (whalesim's own failures).
        var filesExhausted = 0
        /// Seconds before this one are finished: spilled to disk, or kept compacted in `buckets`
        /// when the spill file could not take them (see ``LatencyHistogram/compacted()``).
        var denseFrom = 0
        /// Where each spilled second is in the spill file (index: the second; length 0: none).
        var spilled: [SpillSlot] = []
        var spillEnd: Int64 = 0
    }

    struct SpillSlot: Sendable {
        var offset: Int64 = 0
        var length = 0
    }

    private let state = NIOLockedValueBox(State())
    public let clock: RunClock
    /// Where finished seconds go (nil: no scratch file could be made; they stay in memory).
    private let spill: SpillFile?
    /// The buffers of the epoll loops the users run on (none: every sample comes here at once).
    private let loopMetrics: LoopMetricsSet

    /// `spillDirectory`: where the scratch file for finished seconds goes (nil: they stay in memory).
    /// `loops`: the epoll loops the run's users are on; what they sample is buffered per loop.
    public init(clock: RunClock, spillDirectory: String? = NSTemporaryDirectory(), loops: [EpollClientLoop] = []) {
        self.clock = clock
        spill = spillDirectory.flatMap { SpillFile(directory: $0) }
        loopMetrics = LoopMetricsSet(loops: loops)
        for loop in loops { if let b = loopMetrics.byOrdinal[loop.ordinal] { mergeEvery(loop, b) } }
    }

    /// Merges `b` on `loop`'s thread every ``LoopMetrics/mergeEveryMs`` until the run drains it.
    private func mergeEvery(_ loop: EpollClientLoop, _ b: LoopMetrics) {
        loop.schedule(atUptimeNs: LoopMetricsSet.uptimeNs(afterMs: LoopMetrics.mergeEveryMs)) { [weak self] in
            guard let self, b.open else { return }
            merge(b)
            mergeEvery(loop, b)
        }
    }

    /// Merges what every loop buffered, for good: what those loops sample afterwards comes here
    /// at once. A run calls this before it reads its figures for the record.
    public func drainLoops() async {
        for loop in loopMetrics.loops {
            guard let b = loopMetrics.byOrdinal[loop.ordinal] else { continue }
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                loop.execute {
                    b.open = false
                    self.merge(b)
                    c.resume()
                }
            }
        }
    }

    /// Adds one loop's buffer to the figures under one lock (on that loop's thread), and empties it.
    private func merge(_ b: LoopMetrics) {
        guard !b.isEmpty else { return }
        state.withLockedValue { s in
            if let last = b.latencies.last {
                var values: [Int64] = []
                values.reserveCapacity(b.latencies.count)
                for (i, name) in Self.latencyNames.enumerated() {
                    let index = UInt8(i)
                    guard b.latencies.contains(where: { $0.name == index }) else { continue }
                    values.removeAll(keepingCapacity: true)
                    for sample in b.latencies where sample.name == index { values.append(sample.us) }
                    s.total[name, default: LatencyHistogram()].record(contentsOf: values)
                    // Then by second (a buffer spans one or two), each second's values at once.
                    var at = 0
                    while at < b.latencies.count {
                        guard b.latencies[at].name == index else { at += 1; continue }
                        let second = b.latencies[at].second
                        values.removeAll(keepingCapacity: true)
                        while at < b.latencies.count, b.latencies[at].second == second {
                            if b.latencies[at].name == index { values.append(b.latencies[at].us) }
                            at += 1
                        }
                        s.buckets[max(Int(second), s.denseFrom), default: [:]][name, default: LatencyHistogram()]
                            .record(contentsOf: values)
                    }
                }
                finishSeconds(before: Int(last.second), in: &s)
            }
            for c in b.counts { s.counters[c.name, default: [:]][Int(c.second), default: 0] += c.n }
            s.attempts += b.attempts
        }
        b.removeAll()
    }

    /// Seconds whose histograms are held in memory (the open ones, and any the spill file refused).
    var secondsInMemory: Int { state.withLockedValue { $0.buckets.count } }

    public func latency(_ name: String, us: Int64) {
        let second = clock.nowMs / Self.bucketMs
        if let b = loopMetrics.current, let i = LoopMetrics.index(of: name) {
            b.latencies.append(LoopMetrics.Latency(name: i, second: Int32(second), us: us))
            return
        }
        record(name, us: us, second: second)
    }

    /// One sample of `name` in second `second` of the run.
    func record(_ name: String, us: Int64, second: Int) {
        state.withLockedValue { s in
            // A sample whose second was finished while its thread waited for the lock goes into
            // the oldest open second: finished seconds are never written again.
            let b = max(second, s.denseFrom)
            s.total[name, default: LatencyHistogram()].record(us: us)
            s.buckets[b, default: [:]][name, default: LatencyHistogram()].record(us: us)
            finishSeconds(before: b, in: &s)
        }
    }

    /// Second `b` has begun: every second before the one before it is over. Keeps their histograms
    /// compact (a dense one is about 160 KB, so dense seconds grew a long run's runner by a megabyte
    /// a second), and on disk: compact, they still grew the soak's runner by 12 KB a second (issue 21).
    private func finishSeconds(before b: Int, in s: inout State) {
        guard b - 1 > s.denseFrom else { return }
        for old in s.denseFrom..<(b - 1) {
            guard let byName = s.buckets[old] else { continue }
            // `encode` compacts as it writes; only a second kept in memory is compacted here.
            s.buckets[old] = spillSecond(byName, second: old, in: &s) ? nil : byName.mapValues { $0.compacted() }
        }
        s.denseFrom = b - 1
    }

    /// Writes a finished second to the spill file; false when there is none or the write failed
    /// (the caller keeps the second in memory: nothing is lost).
    private func spillSecond(_ byName: [String: LatencyHistogram], second: Int, in s: inout State) -> Bool {
        guard let spill else { return false }
        let bytes = SpilledSecond.encode(byName)
        guard spill.write(bytes, at: s.spillEnd) else { return false }
        while s.spilled.count <= second { s.spilled.append(SpillSlot()) }
        s.spilled[second] = SpillSlot(offset: s.spillEnd, length: bytes.count)
        s.spillEnd += Int64(bytes.count)
        return true
    }

    /// Second `b`'s histograms by metric, from memory or from the spill file. A second whose
    /// bytes cannot be read back is nil: its figures are missing from the charts, never made up.
    private func second(_ b: Int, _ s: State) -> [String: LatencyHistogram]? {
        if let kept = s.buckets[b] { return kept }
        guard b < s.spilled.count, s.spilled[b].length > 0, let spill,
            let bytes = spill.read(at: s.spilled[b].offset, count: s.spilled[b].length)
        else { return nil }
        return SpilledSecond.decode(bytes)
    }

    /// Every second up to `n` (exclusive), each read once.
    private func seconds(_ n: Int, _ s: State) -> [[String: LatencyHistogram]?] {
        (0..<n).map { second($0, s) }
    }

    /// The seconds that have histograms (in memory or spilled).
    private func secondCount(_ s: State) -> Int {
        max(s.spilled.count, (s.buckets.keys.max() ?? -1) + 1)
    }

    /// Second `b`'s histogram of `name` while it is still in memory (the live view reads the
    /// last whole second; a spilled one is not read back for it). Nil when nothing was recorded.
    public func inMemorySecond(_ b: Int, of name: String) -> LatencyHistogram? {
        state.withLockedValue { $0.buckets[b]?[name] }
    }

    /// One sample of the runner's scheduling lag: a timer or an event-loop task that ran `us` late.
    public func lag(us: Int64) { latency("runner_lag", us: max(0, us)) }

    /// Metric → bucket index → that second's histogram (what scoped thresholds add up).
    public var bucketsByMetric: [String: [Int: LatencyHistogram]] {
        let s = state.withLockedValue { $0 }
        var out: [String: [Int: LatencyHistogram]] = [:]
        for (b, byName) in seconds(secondCount(s), s).enumerated() {
            for (name, h) in byName ?? [:] { out[name, default: [:]][b] = h }
        }
        return out
    }

    public func count(_ name: String, _ n: Int = 1) {
        let b = clock.nowMs / Self.bucketMs
        if let buffer = loopMetrics.current {
            buffer.counts.append(LoopMetrics.Count(name: name, second: Int32(b), n: n))
            return
        }
        state.withLockedValue { $0.counters[name, default: [:]][b, default: 0] += n }
    }

    /// One attempted request or op (for the error rate).
    public func attempt(_ n: Int = 1) {
        if let buffer = loopMetrics.current {
            buffer.attempts += n
            return
        }
        state.withLockedValue { $0.attempts += n }
    }

    /// An error of `kind`, shown per second in the report. `rated: false` for what a fault
    /// window causes on purpose (a dropped socket): charted, but not in `errors.rate`.
    public func error(_ kind: String, rated: Bool = true) {
        let b = clock.nowMs / Self.bucketMs
        state.withLockedValue { s in
            s.errors[kind, default: [:]][b, default: 0] += 1
            if rated { s.errorTotal += 1 }
        }
    }

    /// A scheduled outage of the server begins or ends (a server-restart window).
    public func outage(_ begins: Bool) { state.withLockedValue { $0.outages += begins ? 1 : -1 } }

    /// A socket could not connect. While the run itself has the server down, the redials that
    /// fail are the fault doing what it was scheduled to do: charted as `connect` errors, but
    /// neither an attempt nor an error in `errors.rate` (the rate says what the server got wrong).
    /// A failure while this process had no descriptor left to open is whalesim's own: charted as
    /// `connect:no-files`, counted in ``filesExhausted``, and kept out of `errors.rate`.
    public func connectFailed() {
        let b = clock.nowMs / Self.bucketMs
        let ours = OpenFiles.exhausted()
        state.withLockedValue { s in
            if ours {
                s.errors["connect:no-files", default: [:]][b, default: 0] += 1
                s.attempts -= 1
                s.filesExhausted += 1
                return
            }
            s.errors["connect", default: [:]][b, default: 0] += 1
            if s.outages > 0 { s.attempts -= 1 } else { s.errorTotal += 1 }
        }
    }

    /// Connects that failed because this process was out of open files (``OpenFiles/exhausted()``).
    public var filesExhausted: Int { state.withLockedValue { $0.filesExhausted } }

    public func connectedDelta(_ d: Int) {
        let b = clock.nowMs / Self.bucketMs
        state.withLockedValue { s in
            s.connected += d
            s.connectedAt[b] = s.connected
        }
    }

    public var connected: Int { state.withLockedValue { $0.connected } }

    /// A copy of the whole-run histograms.
    public var totals: [String: LatencyHistogram] { state.withLockedValue { $0.total } }
    public var errorCount: Int { state.withLockedValue { $0.errorTotal } }
    public var attempts: Int { state.withLockedValue { $0.attempts } }
    /// Every error of `kind` charted so far, rated or not.
    public func errorSeriesTotal(_ kind: String) -> Int {
        state.withLockedValue { $0.errors[kind]?.values.reduce(0, +) ?? 0 }
    }
    public func counterTotal(_ name: String) -> Int {
        state.withLockedValue { $0.counters[name]?.values.reduce(0, +) ?? 0 }
    }

    /// Ops acknowledged in the last complete second (the progress line's rate).
    public func rate(_ counter: String, secondsBack: Int = 1) -> Int {
        let b = clock.nowMs / Self.bucketMs - secondsBack
        return state.withLockedValue { $0.counters[counter]?[b] ?? 0 }
    }

    /// Per bucket and metric, the bucket's histogram in its portable form (`seriesHistograms`):
    /// what `merge` adds up to chart merged percentiles exactly.
    public func bucketHistograms(endMs: Int) -> [String: [[[UInt64]]]] {
        let s = state.withLockedValue { $0 }
        let n = max(1, (endMs + Self.bucketMs - 1) / Self.bucketMs)
        let all = seconds(n, s)
        var out: [String: [[[UInt64]]]] = [:]
        for name in Self.latencyNames where s.total[name] != nil {
            out[name] = all.map { $0?[name]?.encoded ?? [] }
        }
        return out
    }

    /// Counters, errors and connected clients per bucket (what `merge` sums).
    public var rawCounters: (counters: [String: [Int: Int]], errors: [String: [Int: Int]]) {
        state.withLockedValue { ($0.counters, $0.errors) }
    }

    /// The figures of `run.json`'s `series`, one bucket a second up to `endMs`.
    public func series(endMs: Int, faultWindows: [FaultWindow]) -> RunSeries {
        let s = state.withLockedValue { $0 }
        let n = max(1, (endMs + Self.bucketMs - 1) / Self.bucketMs)
        let starts = (0..<n).map { $0 * Self.bucketMs }
        var latency: [String: LatencySeries] = [:]
        let all = seconds(n, s)
        for name in Self.latencyNames where s.total[name] != nil {
            // A compact second is made dense once for its four figures, not once a figure.
            let seconds = all.map { $0?[name].map { $0.densified() } }
            func column(_ f: (LatencyHistogram) -> Double?) -> [Double?] { seconds.map { $0.flatMap(f) } }
            let t = s.total[name]!
            latency[name] = LatencySeries(
                p50: column { $0.percentileMs(50) }, p90: column { $0.percentileMs(90) },
                p99: column { $0.percentileMs(99) }, max: column { $0.maxMs },
                overall: LatencyFigures(
                    count: t.count, p50: t.percentileMs(50), p90: t.percentileMs(90), p99: t.percentileMs(99),
                    max: t.maxMs))
        }
        var counters: [String: [Int]] = [:]
        for (name, byBucket) in s.counters { counters[name] = (0..<n).map { byBucket[$0] ?? 0 } }
        var errors: [String: [Int]] = [:]
        for (kind, byBucket) in s.errors { errors[kind] = (0..<n).map { byBucket[$0] ?? 0 } }
        var connected: [Int] = []
        var last = 0
        for b in 0..<n {
            if let v = s.connectedAt[b] { last = v }
            connected.append(last)
        }
        return RunSeries(
            unit: "ms", bucketWidth: Self.bucketMs, bucketStarts: starts, latency: latency, counters: counters,
            connected: connected, errors: errors, faultWindows: faultWindows)
    }
}
