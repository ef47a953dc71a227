import WhaleCore

/// The simulator's seeded random number generator: xoshiro256**, seeded through SplitMix64.
///
/// Every draw in the simulated path says `using: &rng`; there is no global RNG. Each client,
/// the network and the nemeses get their own child generator from ``derive(_:)``, so adding a
/// draw in one stream never shifts another (that is what lets the shrinker drop a client and
/// keep the others' behaviour).
///
/// ```swift
/// var rng = SimRandom(seed: 42)
/// var client3 = rng.derive(3)
/// let delay = Int.random(in: 1...20, using: &client3)
/// ```
///
/// The four words of state are the first four draws of ``SplitMix64`` from the seed, as the
/// xoshiro authors recommend.
public struct SimRandom: RandomNumberGenerator, Sendable {
    private var s0: UInt64, s1: UInt64, s2: UInt64, s3: UInt64
    /// The seed this generator was built from (child generators get a derived seed).
    public let seed: UInt64

    public init(seed: UInt64) {
        self.seed = seed
        var sm = SplitMix64(seed: seed)
        s0 = sm.next()
        s1 = sm.next()
        s2 = sm.next()
        s3 = sm.next()
    }

    @inline(__always) public mutating func next() -> UInt64 {
        let result = ((s1 &* 5) <<< 7) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = s3 <<< 45
        return result
    }

    /// A child generator for stream `label`, depending only on this generator's seed and the
    /// label (not on how many draws were made), so streams stay independent.
    public func derive(_ label: UInt64) -> SimRandom {
        var mix = SplitMix64(seed: seed ^ (label &* 0xD1B5_4A32_D192_ED03))
        return SimRandom(seed: mix.next() ^ label)
    }

    /// A uniform integer in `range` (a thin, fast wrapper that keeps call sites short).
    @inline(__always) public mutating func int(in range: ClosedRange<Int>) -> Int {
        Int.random(in: range, using: &self)
    }

    /// True with probability `p`.
    @inline(__always) public mutating func chance(_ p: Double) -> Bool {
        Double(next() >> 11) * 0x1.0p-53 < p
    }

    /// A uniform double in [0, 1).
    @inline(__always) public mutating func unit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }
}

infix operator <<< : BitwiseShiftPrecedence
@inline(__always) private func <<< (x: UInt64, k: UInt64) -> UInt64 { (x << k) | (x >> (64 - k)) }
