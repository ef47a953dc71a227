import Testing
import WhaleOT
@testable import WhaleSim

/// The checkers on histories longer than their window: what they hold stays bounded by the notes
/// and the clients (``CheckFootprint``), a revision that goes back past the window is unknown, not
/// invalid, and what they caught over the whole log they still catch after it was folded away.
@Suite struct BoundedCheckerTests {
    /// A history built op by op: every op is edited, invoked, sent, applied at the end of its note
    /// (an insert of "x", or a delete of the last scalar), acknowledged, and seen by every client.
    struct Script {
        var history: History
        var texts: [String]
        var revisions: [Int]
        var counters: [Int]
        var time: SimTime = 0

        init(documents: Int, clientsPerDocument: Int = 2, initial: String = "abcdefgh") {
            let clients = documents * clientsPerDocument
            history = History(
                clientNames: (0..<clients).map { "c\($0)" },
                clientDocuments: (0..<clients).map { $0 / clientsPerDocument },
                documentNames: (0..<documents).map { "note-\($0)" },
                initialTexts: Array(repeating: initial, count: documents),
                protocolVersion: 2)
            texts = history.initialTexts
            revisions = Array(repeating: 0, count: documents)
            counters = Array(repeating: 0, count: clients)
            for c in 0..<clients { history.append(.connect(client: c), at: 0) }
        }

        func length(_ d: Int) -> Int { texts[d].unicodeScalars.count }

        /// The next op of client `c`: a delete when `delete` and the note is longer than its start.
        mutating func nextOp(_ c: Int, delete: Bool, deleting n: Int = 1) -> (id: String, op: Operation) {
            let d = history.clientDocuments[c], len = length(d)
            counters[c] += 1
            let op: Operation
            if delete, len > 8 {
                var o = Operation(); o.retain(len - n); o.delete(n); op = o
            } else {
                op = Operation.replace(in: len, at: len, inserting: "x")
            }
            return ("c\(c):\(counters[c])", op)
        }

        /// One op through its whole life; `userDeleted` is what the edit says its user deleted.
        @discardableResult
        mutating func op(
            _ c: Int, delete: Bool = false, deleting n: Int = 1, userDeleted: Int? = nil, apply: Bool = true,
            ack: Bool = true
        ) -> String {
            let d = history.clientDocuments[c]
            let (id, op) = nextOp(c, delete: delete, deleting: n)
            time += 1
            history.append(
                .edit(
                    client: c, position: length(d), deleted: userDeleted ?? op.deletedCount, inserted: op.insertedText),
                at: time)
            history.append(.invoke(client: c, opId: id, op: op, baseRevision: revisions[d]), at: time)
            history.append(.send(client: c, opId: id, op: op, revision: revisions[d]), at: time)
            if apply { serverApply(c, id, op) }
            if ack { history.append(.ack(client: c, opId: id, revision: revisions[d]), at: time) }
            seen(d)
            return id
        }

        mutating func serverApply(_ c: Int, _ id: String, _ op: Operation) {
            let d = history.clientDocuments[c]
            revisions[d] += 1
            texts[d] = try! op.apply(to: texts[d])
            history.append(.serverApply(document: d, client: c, opId: id, op: op, revision: revisions[d]), at: time)
        }

        mutating func seen(_ d: Int) {
            for c in history.clients(of: d) {
                history.append(.clientRevision(client: c, revision: revisions[d]), at: time)
            }
        }

        /// Ops by turns of every client, `n` in all; every third a delete.
        mutating func ops(_ n: Int) {
            let clients = history.clientNames.count
            for k in 0..<n { op(k % clients, delete: k % 3 == 2) }
        }

        mutating func end() -> History {
            time += 1
            history.append(.heal, at: time)
            history.append(.quiescence(reached: true, ticksAfterHeal: 1), at: time)
            history.append(.traffic(messages: 10, edits: 10, clients: history.clientNames.count), at: time)
            for d in texts.indices {
                history.append(
                    .serverFinal(document: d, text: texts[d], revision: revisions[d], historyCount: revisions[d]),
                    at: time)
            }
            for c in history.clientNames.indices {
                let d = history.clientDocuments[c]
                history.append(
                    .clientFinal(client: c, text: texts[d], revision: revisions[d], pendingOps: 0, connected: true),
                    at: time)
            }
            return history
        }
    }

    func judged(_ h: History) -> [CheckerName: (result: CheckResult, footprint: CheckFootprint)] {
        [
            .convergence: ConvergenceChecker.judge(h), .intention: IntentionChecker.judge(h),
            .cursors: CursorChecker.judge(h), .revisions: RevisionChecker.judge(h),
        ]
    }

    /// 100,000 ops over four notes: every checker is valid, holds at most the window of each note
    /// and the ops in flight, and holds no more than it did for a run of 30,000 (long enough to fill
    /// every window). 100,000 is over three times that and four times the windows together; 200,000
    /// proved nothing more and cost the suite its slowest 88 s (each op is applied to a note that grows).
    @Test func whatTheCheckersHoldDoesNotGrowWithTheRun() {
        func run(_ n: Int) -> History {
            var s = Script(documents: 4)
            s.history.append(.selectionSet(client: 0, revision: 0, selection: Selection(cursor: 4)), at: 0)
            s.ops(n)
            s.history.append(
                .ownCursor(
                    client: 0, revision: s.revisions[0], selection: Selection(cursor: 4), textLength: s.length(0)),
                at: s.time)
            return s.end()
        }
        let long = judged(run(100_000)), short = judged(run(30_000))
        for (name, judged) in long.sorted(by: { $0.key < $1.key }) {
            #expect(judged.result.verdict == .valid, "\(name): \(judged.result.evidence)")
        }
        let window = AppliedLog.windowSize(documents: 4)
        #expect(window == 6_400)
        let longPrints = long.mapValues(\.footprint), shortPrints = short.mapValues(\.footprint)
        for (name, print) in longPrints.sorted(by: { $0.key < $1.key }) {
            #expect(print.windowEntries <= 4 * window, "\(name): \(print)")
            #expect(print == shortPrints[name], "\(name): \(print) for 100,000 ops, \(shortPrints[name]!) for 30,000")
        }
        // The intention checker holds an op until it is acknowledged and its apply left the window:
        // the ops in flight and those still in the window, never the run's.
        #expect(longPrints[.intention]!.opEntries <= 4 * window + 1)
        // The revision checker: the ops in flight and the last acknowledged (1,024 for 8 clients).
        #expect(longPrints[.revisions]!.opEntries <= 1024 + 1)
    }

    /// A revision that goes back past the window cannot be followed: the checker no longer holds
    /// the ops it folded, so it says unknown. With a window that holds them all, the same history is
    /// invalid (acknowledged edits were lost), as the old checkers said.
    @Test func aRevisionGoingBackPastTheWindowIsUnknown() {
        var s = Script(documents: 1, clientsPerDocument: 1)
        for _ in 0..<16 { s.op(0) }
        // Four more applied, not yet acknowledged when the server goes back to revision 5.
        let pending = (0..<4).map { _ in s.op(0, ack: false) }
        s.time += 1
        s.history.append(.serverRevision(document: 0, from: 20, to: 5, cause: "server restart"), at: s.time)
        s.revisions[0] = 5
        s.texts[0] = "abcdefgh" + String(repeating: "x", count: 5)
        for id in pending {
            // The resend after the restart, rebased on the shorter text.
            let op = Operation.replace(in: s.length(0), at: s.length(0), inserting: "x")
            s.history.append(.send(client: 0, opId: id, op: op, revision: s.revisions[0]), at: s.time)
            s.serverApply(0, id, op)
            s.history.append(.ack(client: 0, opId: id, revision: s.revisions[0]), at: s.time)
            s.seen(0)
        }
        let h = s.end()
        let narrow = IntentionChecker.judge(h, windowSize: 4).result
        #expect(narrow.verdict == .unknown, "\(narrow.evidence)")
        #expect(
            narrow.evidence.contains {
                $0.contains("went back from 20 to 5 (server restart), past the 4 ops the checkers keep")
            }, "\(narrow.evidence)")
        let convergence = ConvergenceChecker.judge(h, windowSize: 4).result
        #expect(convergence.verdict == .unknown, "\(convergence.evidence)")
        let wide = IntentionChecker.judge(h, windowSize: 64).result
        #expect(wide.verdict == .invalid, "\(wide.evidence)")
        #expect(
            wide.evidence.contains {
                $0.contains("c0:6 was acknowledged") && $0.contains("an acknowledged edit was lost")
            }, "\(wide.evidence)")
    }

    /// Each violation early in a run long enough that its op was folded out of an 8-op window.
    @Test func whatWasCaughtOverTheWholeLogIsCaughtAfterAFold() {
        func judged(_ build: (inout Script) -> Void) -> (
            intention: CheckResult, convergence: CheckResult, cursors: CheckResult
        ) {
            var s = Script(documents: 1)
            s.history.append(.selectionSet(client: 1, revision: 0, selection: Selection(cursor: 4)), at: 0)
            s.ops(5)
            build(&s)
            s.ops(200)
            let h = s.end()
            return (
                IntentionChecker.judge(h, windowSize: 8).result, ConvergenceChecker.judge(h, windowSize: 8).result,
                CursorChecker.judge(h, windowSize: 8).result
            )
        }
        let clean = judged { _ in }
        #expect(clean.intention.verdict == .valid, "\(clean.intention.evidence)")
        #expect(clean.convergence.verdict == .valid, "\(clean.convergence.evidence)")

        // Applied twice, the second time right after: its first apply is among the recent ops.
        let twice = judged { s in
            let id = s.op(0)
            s.serverApply(0, id, Operation.replace(in: s.length(0), at: s.length(0), inserting: "x"))
            s.seen(0)
        }
        #expect(
            twice.intention.evidence.contains { $0.contains("c0:4 applied twice on note-0 (revisions 6 and 7)") },
            "\(twice.intention.evidence)")

        // Applied again long after: the op was let go, and the apply is one no client sent.
        let late = judged { s in
            let id = s.op(0)
            s.ops(50)
            s.serverApply(0, id, Operation.replace(in: s.length(0), at: s.length(0), inserting: "x"))
            s.seen(0)
        }
        #expect(late.intention.verdict == .invalid)
        #expect(
            late.intention.evidence.contains { $0.contains("applies c0:4, which no client sent") },
            "\(late.intention.evidence)")

        // Acknowledged, never applied.
        let unapplied = judged { s in s.op(0, apply: false) }
        #expect(
            unapplied.intention.evidence.contains {
                $0.contains("c0:4 was acknowledged at t=6 but is not in the server's history")
            }, "\(unapplied.intention.evidence)")

        // Acknowledged, then dropped by a revision that went back inside the window.
        let dropped = judged { s in
            s.op(0)
            s.time += 1
            s.history.append(
                .serverRevision(document: 0, from: s.revisions[0], to: s.revisions[0] - 1, cause: "server restart"),
                at: s.time)
            s.revisions[0] -= 1
            s.texts[0] = String(s.texts[0].dropLast())
            s.seen(0)
        }
        #expect(
            dropped.intention.evidence.contains {
                $0.contains("c0:4 was acknowledged at t=6 but dropped from note-0 at t=7 (server restart)")
            }, "\(dropped.intention.evidence)")

        // A delete of three scalars where its user deleted one.
        let wide = judged { s in s.op(0, delete: true, deleting: 3, userDeleted: 1) }
        #expect(
            wide.intention.evidence.contains {
                $0.contains("c0:4 (c0, revision 6 of note-0) deleted 3 scalars") && $0.contains("a too-wide delete")
            }, "\(wide.intention.evidence)")

        // A delete of a scalar c1 inserted after the revision c0 sent against.
        let unseen = judged { s in
            s.op(1)
            s.counters[0] += 1
            let id = "c0:\(s.counters[0])", len = s.length(0)
            var op = Operation(); op.retain(len - 1); op.delete(1)
            s.time += 1
            s.history.append(.edit(client: 0, position: len - 1, deleted: 1, inserted: ""), at: s.time)
            s.history.append(.invoke(client: 0, opId: id, op: op, baseRevision: s.revisions[0] - 1), at: s.time)
            s.history.append(.send(client: 0, opId: id, op: op, revision: s.revisions[0] - 1), at: s.time)
            s.serverApply(0, id, op)
            s.history.append(.ack(client: 0, opId: id, revision: s.revisions[0]), at: s.time)
            s.seen(0)
        }
        #expect(
            unseen.intention.evidence.contains {
                $0.contains("deleted \"x\", inserted by c1:3 after revision 5, which its author had not seen")
            }, "\(unseen.intention.evidence)")

        // A server text that is not the replay of its ops.
        var s = Script(documents: 1)
        s.ops(100)
        s.texts[0] += "?"
        let replay = ConvergenceChecker.judge(s.end(), windowSize: 8).result
        #expect(
            replay.evidence.contains { $0.contains("note-0: the server's text is not the replay of its history") },
            "\(replay.evidence)")
    }

    /// A selection set before 200 ops, probed after them: the oracle moved it as each op left the
    /// window, and still catches a caret in the wrong place.
    @Test func aCursorIsJudgedFromABaselineSetBeforeTheWindow() {
        func probe(_ at: Int) -> CheckResult {
            var s = Script(documents: 1)
            // Client 1's caret after the initial text; client 0 keeps inserting there (the remote rule keeps
            // the caret before them) and deleting what it inserted.
            s.history.append(.selectionSet(client: 1, revision: 0, selection: Selection(cursor: 8)), at: 0)
            for k in 0..<200 { s.op(0, delete: k % 2 == 1) }
            s.history.append(
                .ownCursor(
                    client: 1, revision: s.revisions[0], selection: Selection(cursor: at), textLength: s.length(0)),
                at: s.time)
            return CursorChecker.judge(s.end(), windowSize: 8).result
        }
        #expect(probe(8).verdict == .valid, "\(probe(8).evidence)")
        let wrong = probe(5)
        #expect(wrong.verdict == .invalid)
        #expect(
            wrong.evidence.first?.contains("the oracle says 8 (set to 8 at revision 0)") == true, "\(wrong.evidence)")
    }
}
