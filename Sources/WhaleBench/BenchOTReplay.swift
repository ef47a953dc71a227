import WhaleOT
import WhalesimTesting

/// Replays a trace's patches into the gap buffer (directly, and as one Operation per patch as
/// the server applies them), the chunked rope and a plain scalar array. The final texts are
/// read after the timed runs and checked against the trace's `endContent`.
package struct BenchOTReplay {
    package var gapBuffer: BenchTiming
    package var wrongText: [String] = []
    package var report: String

    package init(trace: EditingTrace, runs: Int) {
        let patches = trace.patches
        let expected = trace.endContent
        var gapDoc = TextDocument(), opsDoc = TextDocument(), ropeDoc = ChunkedRope(), arrayDoc: [Unicode.Scalar] = []
        (gapBuffer, _) = BenchTiming.measure(runs: runs) {
            var doc = TextDocument(trace.startContent)
            for p in patches { try! doc.replace(at: p.position, deleting: p.deleted, inserting: p.text) }
            gapDoc = doc
            return doc.count
        }
        let (ops, _) = BenchTiming.measure(runs: runs) {
            var doc = TextDocument(trace.startContent)
            for p in patches {
                try! doc.apply(Operation.replace(in: doc.count, at: p.position, deleting: p.deleted, inserting: p.text))
            }
            opsDoc = doc
            return doc.count
        }
        let (rope, _) = BenchTiming.measure(runs: runs) {
            var doc = ChunkedRope(trace.startContent)
            for p in patches { doc.replace(at: p.position, deleting: p.deleted, inserting: p.text) }
            ropeDoc = doc
            return doc.count
        }
        let (array, _) = BenchTiming.measure(runs: runs) {
            var doc = Array(trace.startContent.unicodeScalars)
            for p in patches { doc.replaceSubrange(p.position..<(p.position + p.deleted), with: p.text.unicodeScalars) }
            arrayDoc = doc
            return doc.count
        }
        let texts = [
            ("gap buffer", gapDoc.text), ("gap buffer via Operations", opsDoc.text),
            ("chunked rope", ropeDoc.text), ("scalar array", String(String.UnicodeScalarView(arrayDoc))),
        ]
        for (name, text) in texts where text != expected { wrongText.append("\(name) replay of \(trace.name)") }
        report = """
            replay \(trace.name) (\(patches.count) edits, final \(expected.unicodeScalars.count) scalars):
              TextDocument (gap buffer)   \(gapBuffer.milliseconds)   target ≤ 100 ms: \(gapBuffer.median <= 0.1 ? "met" : "MISSED")
                same, one Operation/patch \(ops.milliseconds)
              ChunkedRope (candidate)     \(rope.milliseconds)
              [Unicode.Scalar] (baseline) \(array.milliseconds)
            """
    }
}
