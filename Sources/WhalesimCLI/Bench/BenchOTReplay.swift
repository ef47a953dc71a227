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
