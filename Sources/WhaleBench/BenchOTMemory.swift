#if canImport(Glibc)
    import Glibc
#endif
import WhaleOT
import WhaleRun
import WhalesimTesting

/// Resident memory of a 1,000,000-scalar TextDocument (VmRSS delta) and its storage's bytes,
/// twice: grown by appending 1,000-scalar chunks as editing does (measured first, before
/// anything else big was allocated), and built at once from a 1,000,000-scalar string.
package struct BenchOTMemory {
    package var rssDeltaBytes: Int
    package var report: String

    package static func measure() -> BenchOTMemory {
        var rng = SplitMix64(seed: 3)
        let chunk = RandomOperation.text(scalars: 1000, using: &rng)
        FreedHeap.returnToSystem()
        let beforeGrown = residentBytes() ?? 0
        var grown = TextDocument()
        for _ in 0..<1000 { try! grown.replace(at: grown.count, deleting: 0, inserting: chunk) }
        let grownDelta = (residentBytes() ?? 0) - beforeGrown

        let text = RandomOperation.text(scalars: 1_000_000, using: &rng)
        FreedHeap.returnToSystem()
        let beforeBuilt = residentBytes() ?? 0
        let built = TextDocument(text)
        let builtDelta = (residentBytes() ?? 0) - beforeBuilt

        let worst = Swift.max(grownDelta, builtDelta)
        let mb = { (bytes: Int) in BenchTiming.format(Double(bytes) / 1_048_576) }
        let report = """
            memory of a 1,000,000-scalar TextDocument (mixed ASCII/non-ASCII text), VmRSS delta and storage:
              grown by 1,000 appends of 1,000 scalars: VmRSS +\(mb(grownDelta)) MB, storage \(grown.storageBytes) bytes (\(mb(grown.storageBytes)) MB)
              built from one 1,000,000-scalar string:  VmRSS +\(mb(builtDelta)) MB, storage \(built.storageBytes) bytes (\(mb(built.storageBytes)) MB)
              target ≤ 16 MB: \(worst <= 16 * 1_048_576 ? "met" : "MISSED")
            """
        withExtendedLifetime((grown, built)) {}
        return BenchOTMemory(rssDeltaBytes: worst, report: report)
    }
}
