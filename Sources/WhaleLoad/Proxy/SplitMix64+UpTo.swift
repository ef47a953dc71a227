import WhaleCore

extension SplitMix64 {
    /// Uniform in 0...max (0 when max ≤ 0): the fault proxy's jitter draw. The proxy owns its
    /// own seeded stream, so a run's delays depend on its seed and the order chunks arrive in,
    /// never on a global generator.
    mutating func upTo(_ max: Int) -> Int {
        guard max > 0 else { return 0 }
        return Int(next() % UInt64(max + 1))
    }
}
