import Testing
import WhaleOT
@testable import WhaleSim

/// A live observer's gaps are `unknown`, never `invalid`; the server's own account fills them,
/// and an account that disagrees with what the server broadcast is evidence against the server.
@Suite struct ObservationTests {
    /// Three ops by c0 on one note ("" → "abc"), each acknowledged; the observer saw the
    /// revisions in `observed` (1-based); then quiescence and finals at revision 3.
    func run(observed: Set<Int>, gap: (from: Int, to: Int)? = nil, finalText: String = "abc", finalRevision: Int = 3)
        -> History
    {
        var h = History(
            clientNames: ["c0", "c1"], clientDocuments: [0, 0], documentNames: ["acc-1"], initialTexts: [""],
            protocolVersion: 2)
        var t = 0
        for (i, ch) in ["a", "b", "c"].enumerated() {
            let op = Operation.replace(in: i, at: i, inserting: ch)
            let id = "c0:\(i + 1)"
            t += 10
            h.append(.edit(client: 0, position: i, deleted: 0, inserted: ch), at: t)
            h.append(.invoke(client: 0, opId: id, op: op, baseRevision: i), at: t)
            h.append(.send(client: 0, opId: id, op: op, revision: i), at: t)
            if let gap, gap.to == i + 1 {
                h.append(
                    .observation(document: 0, from: gap.from, to: gap.to, kind: .gap, detail: "socket down"), at: t + 1)
            }
            if observed.contains(i + 1) {
                h.append(.serverApply(document: 0, client: 0, opId: id, op: op, revision: i + 1), at: t + 2)
            }
            h.append(.ack(client: 0, opId: id, revision: i + 1), at: t + 3)
            h.append(.clientRevision(client: 0, revision: i + 1), at: t + 3)
            h.append(.clientRevision(client: 1, revision: i + 1), at: t + 4)
        }
        h.append(.heal, at: 100)
        h.append(.quiescence(reached: true, ticksAfterHeal: 5), at: 105)
        h.append(.traffic(messages: 12, edits: 3, clients: 2), at: 110)
        h.append(
            .serverFinal(document: 0, text: finalText, revision: finalRevision, historyCount: finalRevision), at: 110)
        h.append(.clientFinal(client: 0, text: "abc", revision: 3, pendingOps: 0, connected: true), at: 110)
        h.append(.clientFinal(client: 1, text: "abc", revision: 3, pendingOps: 0, connected: true), at: 110)
        return h
    }

    var account: [ServerAccountOp] {
        ["a", "b", "c"].enumerated().map { i, ch in
            ServerAccountOp(opId: "c0:\(i + 1)", client: 0, op: .replace(in: i, at: i, inserting: ch))
        }
    }

    func verdicts(_ h: History) -> [CheckerName: CheckResult] {
        Dictionary(
            uniqueKeysWithValues: Checkers.run([.convergence, .intention, .revisions, .cursors], on: h).map {
                ($0.checker, $0)
            })
    }

    /// The demo's seed 31 (2026-11-25): op 3 reached the server and was applied, its client's
    /// socket went before the ack, and on the new socket the resend was refused, so the client gave
    /// it up ("abandoned"). The edit is in the server's history: a finding, not a lost edit. An
    /// abandoned op the server never applied is still lost (invalid).
    @Test func anAbandonedOpTheServerAppliedIsNotLost() {
        var h = History(
            clientNames: ["c0", "c1"], clientDocuments: [0, 0], documentNames: ["acc-1"], initialTexts: [""],
            protocolVersion: 2)
        let op = Operation.replace(in: 0, at: 0, inserting: "a")
        h.append(.invoke(client: 0, opId: "c0:1", op: op, baseRevision: 0), at: 10)
        h.append(.send(client: 0, opId: "c0:1", op: op, revision: 0), at: 10)
        h.append(.disconnect(client: 0, cause: "client reconnect"), at: 11)
        h.append(.serverApply(document: 0, client: 0, opId: "c0:1", op: op, revision: 1), at: 12)
        h.append(.connect(client: 0), at: 20)
        h.append(.send(client: 0, opId: "c0:1", op: op, revision: 0), at: 20)
        h.append(
            .failed(client: 0, opId: "c0:1", code: "dropped: the server refused the change: not joined to acc-1"),
            at: 21)
        h.append(.heal, at: 100)
        h.append(.quiescence(reached: true, ticksAfterHeal: 5), at: 105)
        h.append(.serverFinal(document: 0, text: "a", revision: 1, historyCount: 1), at: 110)
        h.append(.clientFinal(client: 0, text: "a", revision: 1, pendingOps: 0, connected: true), at: 110)
        h.append(.clientFinal(client: 1, text: "a", revision: 1, pendingOps: 0, connected: true), at: 110)
        let kept = verdicts(h)[.intention]!
        #expect(kept.verdict == .valid, "\(kept.evidence)")
        #expect(
            kept.findings.contains { $0.contains("c0:1 was abandoned by its client") && $0.contains("revision 1") },
            "\(kept.findings)")

        var lost = History(
            clientNames: ["c0", "c1"], clientDocuments: [0, 0], documentNames: ["acc-1"], initialTexts: [""],
            protocolVersion: 2)
        lost.append(.invoke(client: 0, opId: "c0:1", op: op, baseRevision: 0), at: 10)
        lost.append(.send(client: 0, opId: "c0:1", op: op, revision: 0), at: 10)
        lost.append(
            .failed(client: 0, opId: "c0:1", code: "dropped: the server refused the change: not joined to acc-1"),
            at: 21)
        lost.append(.heal, at: 100)
        lost.append(.quiescence(reached: true, ticksAfterHeal: 5), at: 105)
        lost.append(.serverFinal(document: 0, text: "", revision: 0, historyCount: 0), at: 110)
        lost.append(.clientFinal(client: 0, text: "", revision: 0, pendingOps: 0, connected: true), at: 110)
        lost.append(.clientFinal(client: 1, text: "", revision: 0, pendingOps: 0, connected: true), at: 110)
        let gone = verdicts(lost)[.intention]!
        #expect(gone.verdict == .invalid)
        #expect(
            gone.evidence.contains { $0.contains("c0:1 was abandoned") && $0.contains("the user's edit was lost") },
            "\(gone.evidence)")
    }

    @Test func everyRevisionObservedIsValid() {
        for r in verdicts(run(observed: [1, 2, 3])).values {
            #expect(r.verdict == .valid, "\(r.checker): \(r.evidence)")
        }
    }

    /// The recorder went silent after revision 1 (the demo's false alarm): the acknowledged ops it
    /// did not see are unknown, not lost, and the server's replay is not judged either.
    @Test func aSilentObserverIsUnknownNotInvalid() {
        let v = verdicts(run(observed: [1]))
        #expect(v[.intention]?.verdict == .unknown, "\(v[.intention]!.evidence)")
        #expect(v[.convergence]?.verdict == .unknown, "\(v[.convergence]!.evidence)")
        #expect(v[.revisions]?.verdict == .valid, "\(v[.revisions]!.evidence)")
        #expect(v[.intention]!.evidence.contains { $0.contains("holds 1 of 3 server revisions") })
    }

    /// A gap the recorder knows of (a resync answered with the full state) in the middle: the
    /// revisions after it are numbered as the server numbered them, with no anomaly.
    @Test func aKnownGapIsUnknownAndTheRevisionsAfterItAreNotAnomalies() {
        let v = verdicts(run(observed: [1, 3], gap: (1, 2)))
        #expect(v[.revisions]?.verdict == .valid, "\(v[.revisions]!.evidence)")
        #expect(v[.intention]?.verdict == .unknown)
        #expect(v[.intention]!.evidence.contains { $0.contains("revisions 2–2 not observed (socket down)") })
    }

    /// The server's account fills what the recorder missed: every checker is valid again, and the
    /// filled stretch is named with its source.
    @Test func theServersAccountFillsTheGap() {
        for observed: Set<Int> in [[1], [1, 3], [], [2]] {
            let (h, said) = run(observed: observed, gap: observed == [1, 3] ? (1, 2) : nil).reconciled(
                document: 0, account: account, readAt: 107, source: "a resync")
            for r in verdicts(h).values { #expect(r.verdict == .valid, "\(observed) \(r.checker): \(r.evidence)") }
            #expect(said?.contains("taken from a resync") == true)
            #expect(h.entries.contains { if case .observation(_, _, _, .filled, _) = $0.event { true } else { false } })
            #expect(!h.entries.contains { if case .observation(_, _, _, .gap, _) = $0.event { true } else { false } })
            // Times stay in order.
            #expect(zip(h.entries, h.entries.dropFirst()).allSatisfy { $0.time <= $1.time })
        }
        let (same, said) = run(observed: [1, 2, 3]).reconciled(
            document: 0, account: account, readAt: 107, source: "a resync")
        #expect(said == nil)
        #expect(same.hash == run(observed: [1, 2, 3]).hash)
    }

    /// The server broadcast one op as revision 2 but its own history holds another there: a
    /// conflict, invalid, and the evidence names what each source said.
    @Test func aBroadcastTheAccountContradictsIsAConflict() {
        var other = account
        other[1] = ServerAccountOp(opId: "c1:9", client: 1, op: .replace(in: 1, at: 1, inserting: "b"))
        let (h, said) = run(observed: [1, 2, 3]).reconciled(
            document: 0, account: other, readAt: 107, source: "a resync")
        #expect(said?.contains("conflict") == true)
        let v = verdicts(h)
        #expect(v[.revisions]?.verdict == .invalid)
        #expect(
            v[.revisions]!.evidence.contains {
                $0.contains("the server broadcast c0:2 (c0)") && $0.contains("holds c1:9 (c1)")
            })
        // c0:2 was acknowledged and is not in the server's account: a lost edit.
        #expect(v[.intention]?.verdict == .invalid)
    }

    /// An account that ends before what the server broadcast: the server went back and the
    /// acknowledged op beyond it is lost (a durability bug the account exposes).
    @Test func anAccountShorterThanTheBroadcastLosesTheAcknowledgedOps() {
        let (h, said) = run(observed: [1, 2, 3], finalText: "ab", finalRevision: 2).reconciled(
            document: 0, account: Array(account.prefix(2)), readAt: 107, source: "a resync")
        #expect(said?.contains("ends at revision 2") == true)
        let v = verdicts(h)
        #expect(v[.intention]?.verdict == .invalid, "\(v[.intention]!.evidence)")
        #expect(v[.intention]!.evidence.contains { $0.contains("c0:3 was acknowledged") && $0.contains("lost") })
        #expect(v[.revisions]?.verdict == .invalid)
    }

    /// Observations survive the record: written to history.jsonl and read back by `merge`.
    @Test func observationsRoundTripThroughHistoryJSONLines() throws {
        let h = run(observed: [1, 3], gap: (1, 2))
        let lines = h.jsonLines()
        #expect(lines.contains("\"type\":\"observation\""))
        #expect(lines.contains("\"kind\":\"gap\""))
        let back = try History.decodeJSONLines(lines, source: "history.jsonl")
        let events = back.compactMap { $0.event({ $0 == "c0" ? 0 : 1 }, { _ in 0 }) }
        #expect(events == h.entries.map(\.event))
        #expect(throws: HistoryDecodeError.self) {
            try History.decodeJSONLines(
                #"{"t":1,"type":"observation","document":"acc-1","from":1,"to":2,"kind":"guess","detail":""}"#,
                source: "bad")
        }
    }
}
