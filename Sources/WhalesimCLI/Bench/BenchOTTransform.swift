import WhaleOT
import WhalesimTesting

/// Transforms per second of small random op pairs on a 1,000-scalar document. The pairs are
/// generated before the timed loop; a checksum of the results keeps the work from being dropped.
struct BenchOTTransform {
    static let pairCount = 100_000
    static let passes = 10
    var perSecond: Double
    var report: String

    init(runs: Int, seed: UInt64) {
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

/// Resident memory of a 1,000,000-scalar TextDocument (VmRSS delta) and its storage's bytes.
struct BenchOTMemory {
    var rssDeltaBytes: Int
    var report: String

    static func measure() -> BenchOTMemory {
        var rng = SplitMix64(seed: 3)
        let text = RandomOperation.text(scalars: 1_000_000, using: &rng)
        let before = residentBytes() ?? 0
        let doc = TextDocument(text)
        let after = residentBytes() ?? 0
        let delta = after - before
        let mb = { (bytes: Int) in BenchTiming.format(Double(bytes) / 1_048_576) }
        let report = """
            memory of a \(doc.count)-scalar TextDocument (mixed ASCII/non-ASCII text):
              VmRSS delta \(mb(delta)) MB, storage \(doc.storageBytes) bytes (\(mb(doc.storageBytes)) MB)   target ≤ 16 MB: \(delta <= 16 * 1_048_576 ? "met" : "MISSED")
            """
        withExtendedLifetime(doc) {}
        return BenchOTMemory(rssDeltaBytes: delta, report: report)
    }
}
