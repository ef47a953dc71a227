/// How long a message spends on a link, in ticks. Drawn per message from the link's seeded
/// generator; the network still delivers each link in order (FIFO), whatever the draws.
///
/// Scenario form: `{distribution: uniform, min: 1, max: 20}`, `{distribution: exponential,
/// mean: 10, max: 200}` or `{distribution: fixed, value: 5}`.
public enum DelayDistribution: Hashable, Sendable {
    case fixed(Int)
    case uniform(min: Int, max: Int)
    /// Exponential with `mean`, capped at `max` so one draw cannot stall a run.
    case exponential(mean: Int, max: Int)

    public func sample(using rng: inout SimRandom) -> Int {
        switch self {
        case .fixed(let n): return n
        case .uniform(let lo, let hi): return lo >= hi ? lo : rng.int(in: lo...hi)
        case .exponential(let mean, let cap):
            guard mean > 0 else { return 0 }
            let u = max(rng.unit(), 1e-12)
            return min(cap, Int((-Double(mean) * log(u)).rounded()))
        }
    }

    /// The largest delay this distribution can produce.
    public var maximum: Int {
        switch self {
        case .fixed(let n): n
        case .uniform(_, let hi): hi
        case .exponential(_, let cap): cap
        }
    }

    /// The same shape with every delay at most `cap` (the shrinker's "shorter delays").
    public func capped(at cap: Int) -> DelayDistribution {
        switch self {
        case .fixed(let n): .fixed(min(n, cap))
        case .uniform(let lo, let hi): .uniform(min: min(lo, cap), max: min(hi, cap))
        case .exponential(let mean, let hi): .exponential(mean: min(mean, cap), max: min(hi, cap))
        }
    }

    /// The scenario-file spelling, for printing options.
    public var description: String {
        switch self {
        case .fixed(let n): "fixed \(n)"
        case .uniform(let lo, let hi): "uniform \(lo)...\(hi)"
        case .exponential(let mean, let hi): "exponential mean \(mean) max \(hi)"
        }
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
