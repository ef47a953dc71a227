import Testing
import WhaleOT
import WhalesimTesting

/// Replays the real editing traces of Fixtures/traces (josephg/editing-traces, CC BY 4.0).
@Suite("editing-trace replay")
struct TraceReplayTests {
    @Test(arguments: EditingTrace.names)
    func replayThroughReplaceGivesEndContent(name: String) throws {
        let trace = try EditingTrace.load(name: name)
        var doc = TextDocument(trace.startContent)
        for patch in trace.patches {
            try doc.replace(at: patch.position, deleting: patch.deleted, inserting: patch.text)
        }
        #expect(doc.count == trace.endContent.unicodeScalars.count)
        #expect(doc.text == trace.endContent)
    }

    /// The same replay through Operations (one per patch) and TextDocument.apply; every third
    /// edit is composed with the next one and the pair applied at once, so compose runs on real
    /// data too. The three smaller traces (rustcode has non-ASCII edits) keep test time short;
    /// `whalesim bench ot` replays automerge-paper.
    @Test(arguments: ["sveltecomponent", "friendsforever_flat", "rustcode"])
    func replayThroughOperationsGivesEndContent(name: String) throws {
        let trace = try EditingTrace.load(name: name)
        var doc = TextDocument(trace.startContent)
        var length = doc.count  // the length after `pending`, which is not applied yet
        var pending: Operation?
        for (i, patch) in trace.patches.enumerated() {
            let edit = Operation.replace(in: length, at: patch.position, deleting: patch.deleted, inserting: patch.text)
            length = edit.targetLength
            if let first = pending {
                try doc.apply(Operation.compose(first, edit))
                pending = nil
            } else if i % 3 == 0 {
                pending = edit
            } else {
                try doc.apply(edit)
            }
        }
        if let last = pending { try doc.apply(last) }
        #expect(doc.text == trace.endContent)
    }

    @Test func nonASCIITraceCountsScalars() throws {
        let trace = try EditingTrace.load(name: "rustcode")
        #expect(trace.patches.contains { $0.text.unicodeScalars.contains { $0.value > 0x7F } })
        #expect(trace.patches.count > 1000)
    }

    @Test func missingTraceIsAClearError() {
        #expect(throws: TraceError.self) { try EditingTrace.load(name: "no-such-trace") }
    }
}
