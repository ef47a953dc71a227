import WhaleOT
import WhalesimTesting

/// Transforms per second of small random op pairs on a 1,000-scalar document. The pairs are
/// generated before the timed loop; a checksum of the results keeps the work from being dropped.
package struct BenchOTTransform {
    package static let pairCount = 100_000
    package static let passes = 10
    package var perSecond: Double
    package var report: String

    package init(runs: Int, seed: UInt64) {
        var rng = SplitMix64(seed: seed &+ 2)
        let pairs = (0..<Self.pairCount).map { _ in
            (RandomOperation.edit(baseLength: 1000, using: &rng), RandomOperation.edit(baseLength: 1000, using: &rng))
        }
        let (timing, checksum) = BenchTiming.measure(runs: runs) {
            var sum = 0
            for _ in 0..<Self.passes {
                for (a, b) in pairs {
                    let (aPrime, bPrime) = try! Operation.transform(a, b)
                    sum &+= aPrime.targetLength &+ bPrime.components.count
                }
            }
            return sum
        }
        let count = Self.pairCount * Self.passes
        perSecond = Double(count) / timing.median
        report = """
            transform of \(Self.pairCount) pre-generated small op pairs × \(Self.passes) on a 1,000-scalar document (checksum \(checksum)):
              Operation.transform         \(timing.rate(count))   target ≥ 3 M/s: \(perSecond >= 3e6 ? "met" : "MISSED")
            """
    }
}
