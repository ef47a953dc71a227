import Testing
import WhaleOT
import WhalesimTesting

/// Foundation also declares `Operation` (NSOperation); files here import both.
typealias Operation = WhaleOT.Operation

/// Builds an operation from the ot.js form for readable tests: `op(2, "x", -1, 3)`.
func op(_ elements: Any...) -> Operation {
    let components: [OTJSComponent] = elements.map { element in
        if let n = element as? Int { return .number(n) }
        return .text(element as! String)
    }
    return try! Operation(otjs: components)
}

/// Runs `body` for `cases` seeded cases. Each case gets its own generator seeded with
/// `seed + i`; the first failing case is reported with its seed, so
/// `forEachSeed(cases: 1, seed: <printed>)` replays exactly that case.
func forEachSeed(
    cases: Int, seed: UInt64 = 0x5EED_0000, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: (inout SplitMix64) throws -> String?
) {
    for i in 0..<UInt64(cases) {
        let caseSeed = seed &+ i
        var rng = SplitMix64(seed: caseSeed)
        do {
            if let failure = try body(&rng) {
                Issue.record("seed \(caseSeed): \(failure)", sourceLocation: sourceLocation)
                return
            }
        } catch {
            Issue.record("seed \(caseSeed): threw \(error)", sourceLocation: sourceLocation)
            return
        }
    }
}
