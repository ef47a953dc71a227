import WhaleOT
import WhalesimTesting

/// Replays a trace's patches into the gap buffer, the chunked rope and a plain scalar array.
struct BenchOTReplay {
    var gapBuffer: BenchTiming
    var rope: BenchTiming
    var array: BenchTiming
    var wrongText: [String] = []
    var report: String

    init(trace: EditingTrace, runs: Int) {
        let patches = trace.patches
        let expected = trace.endContent
        var gapText = "", ropeText = "", arrayText = ""
        (gapBuffer, _) = BenchTiming.measure(runs: runs) {
            var doc = TextDocument(trace.startContent)
            for p in patches { try! doc.replace(at: p.position, deleting: p.deleted, inserting: p.text) }
            gapText = doc.text
            return doc.count
        }
        (rope, _) = BenchTiming.measure(runs: runs) {
            var doc = ChunkedRope(trace.startContent)
            for p in patches { doc.replace(at: p.position, deleting: p.deleted, inserting: p.text) }
            ropeText = doc.text
            return doc.count
        }
        (array, _) = BenchTiming.measure(runs: runs) {
            var doc = Array(trace.startContent.unicodeScalars)
            for p in patches { doc.replaceSubrange(p.position..<(p.position + p.deleted), with: p.text.unicodeScalars) }
            arrayText = String(String.UnicodeScalarView(doc))
            return doc.count
        }
        for (name, text) in [("gap buffer", gapText), ("chunked rope", ropeText), ("scalar array", arrayText)] where text != expected {
            wrongText.append("\(name) replay of \(trace.name)")
        }
        report = """
            replay \(trace.name) (\(patches.count) edits, final \(expected.unicodeScalars.count) scalars):
              TextDocument (gap buffer)   \(gapBuffer.milliseconds)   target ≤ 100 ms: \(gapBuffer.median <= 0.1 ? "met" : "MISSED")
              ChunkedRope (candidate)     \(rope.milliseconds)
              [Unicode.Scalar] (baseline) \(array.milliseconds)
            """
    }
}

/// Random-position edits on a 1,000,000-scalar document: the gap buffer's worst case.
struct BenchOTRandomEdits {
    static let documentLength = 1_000_000
    static let editCount = 10_000
    var wrongText: [String] = []
    var report: String

    init(runs: Int, seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        let start = RandomOperation.text(scalars: Self.documentLength, using: &rng)
        var edits: [EditingTrace.Patch] = []
        var length = Self.documentLength
        for _ in 0..<Self.editCount {
            let position = Int.random(in: 0...length, using: &rng)
            let deleted = Int.random(in: 0...min(3, length - position), using: &rng)
            let text = RandomOperation.text(scalars: Int.random(in: 0...3, using: &rng), using: &rng)
            edits.append(.init(position: position, deleted: deleted, text: text))
            length += text.unicodeScalars.count - deleted
        }
        var gapText = "", ropeText = ""
        let (gap, _) = BenchTiming.measure(runs: runs) {
            var doc = TextDocument(start)
            for e in edits { try! doc.replace(at: e.position, deleting: e.deleted, inserting: e.text) }
            if gapText.isEmpty { gapText = doc.text }
            return doc.count
        }
        let (rope, _) = BenchTiming.measure(runs: runs) {
            var doc = ChunkedRope(start)
            for e in edits { doc.replace(at: e.position, deleting: e.deleted, inserting: e.text) }
            if ropeText.isEmpty { ropeText = doc.text }
            return doc.count
        }
        if gapText != ropeText { wrongText.append("random edits (gap buffer and rope disagree)") }
        report = """
            \(Self.editCount) random-position edits on a \(Self.documentLength)-scalar document (building it included):
              TextDocument (gap buffer)   \(gap.milliseconds)
              ChunkedRope (candidate)     \(rope.milliseconds)
            """
    }
}
