#if canImport(Glibc)
    import Glibc
#else
    import Foundation
#endif

/// Milliseconds since the start of a live run, from the monotonic clock. The only clock the
/// runner reads; every time in a live history and record is one of these.
///
/// Read straight from `clock_gettime`: the runner reads it several times a frame, and
/// `ContinuousClock`'s `Duration` arithmetic (128-bit attoseconds) was about 2% of the runner's
/// CPU at 2,000 ops/s (docs/decisions/0046-runner-on-epoll-loops.md).
public struct RunClock: Sendable {
    private let startNs = RunClock.monotonicNs()
    public init() {}

    /// Whole milliseconds since the start.
    public var nowMs: Int { Int((Self.monotonicNs() - startNs) / 1_000_000) }

    /// Microseconds since the start (latency samples).
    public var nowUs: Int64 { (Self.monotonicNs() - startNs) / 1_000 }

    private static func monotonicNs() -> Int64 {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Int64(t.tv_sec) * 1_000_000_000 + Int64(t.tv_nsec)
    }
}
