/// SplitMix64 (Steele, Lea and Flood 2014): whalesim's one small seeded generator. The same seed
/// gives the same stream on every platform, so nothing seeded ever touches the global RNG.
///
/// Its users: the fake Salesforce (orgs, fault plans, tokens, the SOQL fuzzer), the fault proxy's
/// jitter, the simulator's seeding of xoshiro256** (`SimRandom`), and the property tests (through
/// WhalesimTesting, which re-exports this module). Each keeps its own derived draws (a bounded int,
/// a unit double) next to its code; all of them are built on ``next()`` alone, so the stream a seed
/// gives is pinned once, by `SeededGeneratorTests`.
///
/// ```swift
/// var rng = SplitMix64(seed: 42)
/// let roll = Int.random(in: 1...6, using: &rng)
/// ```
@frozen
public struct SplitMix64: RandomNumberGenerator, Sendable {
    @usableFromInline var state: UInt64

    @inlinable public init(seed: UInt64) { state = seed }

    @inlinable public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
