/// Simulated time in ticks. One tick stands for one millisecond of wall time in reports,
/// but nothing in the simulated path ever reads a real clock.
public typealias SimTime = Int

/// The virtual clock: time only moves when the run loop takes the next event.
public struct SimClock: Sendable {
    public private(set) var now: SimTime = 0
    public init() {}

    /// Moves to `time`; time never goes backwards.
    public mutating func advance(to time: SimTime) {
        precondition(time >= now, "the simulated clock cannot go back (\(now) → \(time))")
        now = time
    }
}
