import Testing
import WhaleOT
@testable import WhaleSim

/// Checkers judged on hand-made histories: they can say invalid without any fault switched on.
@Suite struct CheckerTests {
    func base() -> History {
        History(
            clientNames: ["c0", "c1"], clientDocuments: [0, 0], documentNames: ["note-0"], initialTexts: ["ab"],
            protocolVersion: 2)
    }

    /// A clean little run: c0 inserts "x" at 0, acknowledged, everyone at "xab".
    func clean() -> History {
        var h = base()
        let op = Operation.replace(in: 2, at: 0, inserting: "x")
        h.append(.connect(client: 0), at: 0)
        h.append(.connect(client: 1), at: 0)
        h.append(.edit(client: 0, position: 0, deleted: 0, inserted: "x"), at: 1)
        h.append(.invoke(client: 0, opId: "c0:1", op: op, baseRevision: 0), at: 1)
        h.append(.send(client: 0, opId: "c0:1", op: op, revision: 0), at: 1)
        h.append(.serverApply(document: 0, client: 0, opId: "c0:1", op: op, revision: 1), at: 3)
        h.append(.ack(client: 0, opId: "c0:1", revision: 1), at: 5)
        h.append(.clientRevision(client: 0, revision: 1), at: 5)
        h.append(.clientRevision(client: 1, revision: 1), at: 6)
        h.append(.heal, at: 7)
        h.append(.selectionSet(client: 0, revision: 1, selection: Selection(cursor: 1)), at: 8)
        h.append(.cursorDelivered(client: 0, revision: 1, selection: Selection(cursor: 1)), at: 9)
        h.append(.ownCursor(client: 0, revision: 1, selection: Selection(cursor: 1), textLength: 3), at: 10)
        h.append(
            .remoteCursor(observer: 1, subject: 0, revision: 1, selection: Selection(cursor: 1), textLength: 3), at: 10)
        h.append(.quiescence(reached: true, ticksAfterHeal: 3), at: 10)
        h.append(.traffic(messages: 6, edits: 2, clients: 2), at: 10)
        h.append(.serverFinal(document: 0, text: "xab", revision: 1, historyCount: 1), at: 10)
        h.append(.clientFinal(client: 0, text: "xab", revision: 1, pendingOps: 0, connected: true), at: 10)
        h.append(.clientFinal(client: 1, text: "xab", revision: 1, pendingOps: 0, connected: true), at: 10)
        return h
    }

    /// `clean()` with the entry at `index` replaced (or removed when `event` is nil).
    func tampered(_ index: Int, _ event: HistoryEvent?) -> History {
        let good = clean()
        var h = base()
        for (i, e) in good.entries.enumerated() {
            if i == index { if let event { h.append(event, at: e.time) } } else { h.append(e.event, at: e.time) }
        }
        return h
    }

    func index(_ h: History, _ match: (HistoryEvent) -> Bool) -> Int { h.entries.firstIndex { match($0.event) }! }

    @Test func aCleanHistoryIsValidForEveryChecker() {
        let results = Checkers.run(CheckerName.allCases, on: clean())
        for r in results { #expect(r.verdict == .valid, "\(r.checker): \(r.evidence)") }
        #expect(Checkers.merged(results) == .valid)
    }

    /// The clean run as a live run would record it on a note that was already at revision 40:
    /// absolute revisions are invalid for the checkers (they count applied ops from 1); rebased
    /// to the note's baseline, every checker is valid again, and a never-joined client's 0 stays 0.
    @Test func aHistoryRebasedToItsNotesBaselineIsJudgedLikeAFreshOne() {
        let shifted = clean().entries.map { e -> HistoryEntry in
            var copy = e
            copy.event = e.event.rebased(document: { _ in 0 }, base: { _ in -40 })
            return copy
        }
        var absolute = base()
        for e in shifted { absolute.append(e.event, at: e.time) }
        #expect(Checkers.merged(Checkers.run(CheckerName.allCases, on: absolute)) == .invalid)
        var rebased = base()
        for e in absolute.entries {
            rebased.append(e.event.rebased(document: { _ in 0 }, base: { _ in 40 }), at: e.time)
        }
        for r in Checkers.run(CheckerName.allCases, on: rebased) {
            #expect(r.verdict == .valid, "\(r.checker): \(r.evidence)")
        }
        #expect(
            HistoryEvent.clientFinal(client: 1, text: "", revision: 0, pendingOps: 0, connected: false).rebased(
                document: { _ in 0 }, base: { _ in 40 })
                == .clientFinal(client: 1, text: "", revision: 0, pendingOps: 0, connected: false))
    }

    @Test func convergenceFindsADivergedClient() {
        let h = tampered(
            index(clean()) { if case .clientFinal(1, _, _, _, _) = $0 { true } else { false } },
            .clientFinal(client: 1, text: "axb", revision: 1, pendingOps: 0, connected: true))
        let r = ConvergenceChecker.check(h)
        #expect(r.verdict == .invalid)
        #expect(r.evidence.first?.hasPrefix("c1 diverged from the server on note-0") == true)
    }

    /// The server's history (and its final state) lacks an acknowledged op: lost. The same history
    /// whose final state still counts the op is a hole in the record instead: unknown, not invalid.
    @Test func intentionFindsALostAcknowledgedEdit() {
        let noApply = tampered(index(clean()) { if case .serverApply = $0 { true } else { false } }, nil)
        var h = base()
        for e in noApply.entries {
            if case .serverFinal = e.event {
                h.append(.serverFinal(document: 0, text: "ab", revision: 0, historyCount: 0), at: e.time)
            } else {
                h.append(e.event, at: e.time)
            }
        }
        let r = IntentionChecker.check(h)
        #expect(r.verdict == .invalid)
        #expect(r.evidence.contains { $0.contains("c0:1 was acknowledged at t=5 but is not in the server's history") })
        let hole = IntentionChecker.check(noApply)
        #expect(hole.verdict == .unknown)
        #expect(
            hole.evidence.contains {
                $0.contains("c0:1 was acknowledged at t=5 and is not among the observed revisions of note-0")
            })
    }

    @Test func intentionFindsADoubledOp() {
        var h = clean()
        let op = Operation.replace(in: 3, at: 0, inserting: "x")
        h = tampered(
            index(h) { if case .ack = $0 { true } else { false } },
            .serverApply(document: 0, client: 0, opId: "c0:1", op: op, revision: 2))
        let r = IntentionChecker.check(h)
        #expect(r.verdict == .invalid)
        #expect(r.evidence.contains { $0.contains("c0:1 applied twice") })
    }

    @Test func cursorsFindARemoteCursorInTheWrongPlace() {
        let h = tampered(
            index(clean()) { if case .remoteCursor = $0 { true } else { false } },
            .remoteCursor(observer: 1, subject: 0, revision: 1, selection: Selection(cursor: 2), textLength: 3))
        let r = CursorChecker.check(h)
        #expect(r.verdict == .invalid)
        #expect(r.evidence.first?.contains("the oracle says 1") == true)
    }

    @Test func cursorsFindASelectionOutOfBounds() {
        let h = tampered(
            index(clean()) { if case .ownCursor = $0 { true } else { false } },
            .ownCursor(client: 0, revision: 1, selection: Selection(anchor: 0, head: 9), textLength: 3))
        #expect(CursorChecker.check(h).verdict == .invalid)
    }

    @Test func revisionsFindAClientGoingBack() {
        let h = tampered(
            index(clean()) { if case .clientRevision(1, _) = $0 { true } else { false } },
            .clientRevision(client: 0, revision: 0))
        let r = RevisionChecker.check(h)
        #expect(r.verdict == .invalid)
        #expect(r.evidence.first == "t=6 c0's revision went back from 1 to 0")
    }

    @Test func livenessFindsNoQuiescenceAndMessageLoops() {
        let stuck = tampered(
            index(clean()) { if case .quiescence = $0 { true } else { false } },
            .quiescence(reached: false, ticksAfterHeal: 100))
        #expect(LivenessChecker.check(stuck).verdict == .invalid)
        let loop = tampered(
            index(clean()) { if case .traffic = $0 { true } else { false } },
            .traffic(messages: 1_000_000, edits: 2, clients: 2))
        #expect(LivenessChecker.check(loop).verdict == .invalid)
    }

    @Test func aTruncatedHistoryIsUnknownNotValid() {
        var h = base()
        h.append(.connect(client: 0), at: 0)
        #expect(ConvergenceChecker.check(h).verdict == .unknown)
        #expect(LivenessChecker.check(h).verdict == .unknown)
    }

    @Test func verdictsMergeWithInvalidWinning() {
        #expect(Verdict.merge([.valid, .unknown]) == .unknown)
        #expect(Verdict.merge([.unknown, .invalid, .valid]) == .invalid)
        #expect(Verdict.merge([]) == .valid)
    }
}
