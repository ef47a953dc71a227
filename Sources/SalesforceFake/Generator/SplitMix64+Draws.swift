import WhaleCore

/// The fake's draws on ``SplitMix64``: org generation, fault plans, token minting and the SOQL
/// fuzzer own their seeded streams, so the same seed gives the same org and the same run on
/// every platform.
extension SplitMix64 {
    /// A uniform draw in [0, 1).
    public mutating func nextUnit() -> Double { Double(next() >> 11) * 0x1.0p-53 }

    /// A uniform index below `n` (n > 0).
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }

    mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
}
