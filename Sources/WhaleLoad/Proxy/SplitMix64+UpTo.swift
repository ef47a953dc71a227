/// SplitMix64: the proxy's own seeded stream for jitter, so a run's delays depend on its seed
/// and the order chunks arrive in, never on a global generator.
struct ProxyRandom: Sendable {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in 0...max (0 when max ≤ 0).
    mutating func upTo(_ max: Int) -> Int {
        guard max > 0 else { return 0 }
        return Int(next() % UInt64(max + 1))
    }
}
