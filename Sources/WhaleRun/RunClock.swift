/// Milliseconds since the start of a live run, from the monotonic clock. The only clock the
/// runner reads; every time in a live history and record is one of these.
public struct RunClock: Sendable {
    private let start = ContinuousClock.now
    public init() {}

    /// Whole milliseconds since the start.
    public var nowMs: Int {
        let d = ContinuousClock.now - start
        return Int(d.components.seconds * 1000) + Int(d.components.attoseconds / 1_000_000_000_000_000)
    }

    /// Microseconds since the start (latency samples).
    public var nowUs: Int64 {
        let d = ContinuousClock.now - start
        return d.components.seconds * 1_000_000 + d.components.attoseconds / 1_000_000_000_000
    }
}
