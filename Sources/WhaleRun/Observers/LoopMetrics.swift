import Dispatch
import WhaleLoad

/// The samples and counts the virtual users on one of whalesim's epoll loops took since the last
/// merge, kept by that loop's thread alone: no lock per sample. ``LiveMetrics`` merges them into
/// its figures under one lock every ``mergeEveryMs`` (a timer on the same loop), and for good when
/// the run drains its loops before it reads its figures (issue 21: "no lock per history or
/// metrics event, per-event-loop buffers merged off the hot path").
///
/// Why the period is short: a sample's second is the second it was taken in, and ``LiveMetrics``
/// keeps only the current and the previous second open, so a merge must come well within a
/// second (a late one would chart the sample a second later). 100 ms also bounds how stale the
/// progress line's rate and an early abort's figures can be.
final class LoopMetrics: @unchecked Sendable {
    static let mergeEveryMs = 100

    struct Latency {
        /// Index into ``LiveMetrics/latencyNames``.
        var name: UInt8
        var second: Int32
        var us: Int64
    }

    struct Count {
        var name: String
        var second: Int32
        var n: Int
    }

    /// False once the run drained this loop: later samples go to ``LiveMetrics`` directly.
    var open = true
    var latencies: [Latency] = []
    var counts: [Count] = []
    var attempts = 0

    init() {
        latencies.reserveCapacity(4096)
        counts.reserveCapacity(1024)
    }

    var isEmpty: Bool { latencies.isEmpty && counts.isEmpty && attempts == 0 }

    /// The index of a latency name in ``LiveMetrics/latencyNames`` (nil: not one of them). The
    /// callers pass literals: a short name compares as two machine words.
    static func index(of name: String) -> UInt8? {
        for (i, known) in LiveMetrics.latencyNames.enumerated() where known == name { return UInt8(i) }
        return nil
    }

    func removeAll() {
        latencies.removeAll(keepingCapacity: true)
        counts.removeAll(keepingCapacity: true)
        attempts = 0
    }
}

/// One ``LoopMetrics`` per epoll loop the run's users are on, indexed by the loop's ordinal.
struct LoopMetricsSet: Sendable {
    let loops: [EpollClientLoop]
    /// By ``EpollClientLoop/ordinal``; nil for loops this run does not use.
    let byOrdinal: [LoopMetrics?]

    init(loops: [EpollClientLoop]) {
        self.loops = loops
        var byOrdinal = [LoopMetrics?](repeating: nil, count: (loops.map(\.ordinal).max() ?? -1) + 1)
        for loop in loops where byOrdinal[loop.ordinal] == nil { byOrdinal[loop.ordinal] = LoopMetrics() }
        self.byOrdinal = byOrdinal
    }

    /// The buffer of the loop whose thread calls this, while it is open; nil anywhere else.
    @inline(__always)
    var current: LoopMetrics? {
        guard !byOrdinal.isEmpty, let i = EpollClientLoop.currentOrdinal, i < byOrdinal.count, let b = byOrdinal[i],
            b.open
        else { return nil }
        return b
    }

    static func uptimeNs(afterMs ms: Int) -> UInt64 {
        DispatchTime.now().uptimeNanoseconds + UInt64(ms) * 1_000_000
    }
}
