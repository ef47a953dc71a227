import WhaleOT
import WhalesimTesting

/// Random-position edits on a large document: the gap buffer's worst case (every edit moves
/// the gap about a third of the document), the chunked rope's best.
package struct BenchOTRandomEdits {
    package static let editCount = 10_000
    package var wrongText: [String] = []
    package var report: String

    package init(runs: Int, seed: UInt64, documentLength: Int) {
        var rng = SplitMix64(seed: seed)
        let start = RandomOperation.text(scalars: documentLength, using: &rng)
        var edits: [EditingTrace.Patch] = []
        var length = documentLength
        for _ in 0..<Self.editCount {
            let position = Int.random(in: 0...length, using: &rng)
            let deleted = Int.random(in: 0...min(3, length - position), using: &rng)
            let text = RandomOperation.text(scalars: Int.random(in: 0...3, using: &rng), using: &rng)
            edits.append(.init(position: position, deleted: deleted, text: text))
            length += text.unicodeScalars.count - deleted
        }
        // Built once outside the timed region; each run mutates a copy (one 4 MB copy-on-write).
        let startGap = TextDocument(start), startRope = ChunkedRope(start)
        var gapDoc = startGap, ropeDoc = startRope
        let (gap, _) = BenchTiming.measure(runs: runs) {
            var doc = startGap
            for e in edits { try! doc.replace(at: e.position, deleting: e.deleted, inserting: e.text) }
            gapDoc = doc
            return doc.count
        }
        let (rope, _) = BenchTiming.measure(runs: runs) {
            var doc = startRope
            for e in edits { doc.replace(at: e.position, deleting: e.deleted, inserting: e.text) }
            ropeDoc = doc
            return doc.count
        }
        // Read after the timed runs: converting a large document to a String is not an edit.
        if gapDoc.text != ropeDoc.text { wrongText.append("random edits (gap buffer and rope disagree)") }
        report = """
            \(Self.editCount) random-position edits on a \(documentLength)-scalar document (a copy of the document included):
              TextDocument (gap buffer)   \(gap.milliseconds)
              ChunkedRope (candidate)     \(rope.milliseconds)
            """
    }
}
