import Testing
import WhaleOT
@testable import WhaleSim

/// The intention checker on deletes: a delete takes only scalars its author had seen and no more
/// than its user deleted; under the original protocol, edits lost on reconnect are findings.
@Suite struct IntentionDeleteTests {
    /// Initial "abcd"; c1 inserts "X" at 4 (revision 1); c0, at revision 0, deletes `deleteOp`.
    func history(userDeleted: Int, deleteOp: Operation, protocolVersion: Int = 2) -> History {
        var h = History(
            clientNames: ["c0", "c1"], clientDocuments: [0, 0], documentNames: ["note-0"], initialTexts: ["abcd"],
            protocolVersion: protocolVersion)
        let insert = Operation.replace(in: 4, at: 4, inserting: "X")
        h.append(.edit(client: 1, position: 4, deleted: 0, inserted: "X"), at: 1)
        h.append(.invoke(client: 1, opId: "c1:1", op: insert, baseRevision: 0), at: 1)
        h.append(.send(client: 1, opId: "c1:1", op: insert, revision: 0), at: 1)
        h.append(.serverApply(document: 0, client: 1, opId: "c1:1", op: insert, revision: 1), at: 2)
        h.append(.ack(client: 1, opId: "c1:1", revision: 1), at: 3)
        h.append(.edit(client: 0, position: 1, deleted: userDeleted, inserted: ""), at: 4)
        h.append(.invoke(client: 0, opId: "c0:1", op: deleteOp, baseRevision: 0), at: 4)
        h.append(.send(client: 0, opId: "c0:1", op: deleteOp, revision: 0), at: 4)
        // The server applies the op as given (a faulty client could send it already wide).
        h.append(.serverApply(document: 0, client: 0, opId: "c0:1", op: deleteOp, revision: 2), at: 5)
        h.append(.ack(client: 0, opId: "c0:1", revision: 2), at: 6)
        let text = (try? deleteOp.apply(to: "abcdX")) ?? ""
        h.append(.quiescence(reached: true, ticksAfterHeal: 1), at: 7)
        h.append(.serverFinal(document: 0, text: text, revision: 2, historyCount: 2), at: 7)
        return h
    }

    @Test func aDeleteAsWideAsTheUsersIsValid() {
        // Deletes "bc" at revision 2's base "abcdX": seen (initial text), 2 as the user asked.
        var op = Operation(); op.retain(1); op.delete(2); op.retain(2)
        let result = IntentionChecker.check(history(userDeleted: 2, deleteOp: op))
        #expect(result.verdict == .valid, "\(result.evidence)")
    }

    @Test func aDeleteWiderThanTheUsersIsInvalidWithTheScalars() {
        // The user deleted 1 scalar; the op (as compose-sign-error makes) deletes 3.
        var op = Operation(); op.retain(1); op.delete(3); op.retain(1)
        let result = IntentionChecker.check(history(userDeleted: 1, deleteOp: op))
        #expect(result.verdict == .invalid)
        #expect(
            result.evidence.contains(
                "c0:1 (c0, revision 2 of note-0) deleted 3 scalars \"bcd\" but its user's edits deleted 1: a too-wide delete"
            ), "\(result.evidence)")
    }

    @Test func aDeleteOfScalarsItsAuthorHadNotSeenIsInvalid() {
        // c0 sent at revision 0 but its op deletes the "X" c1 inserted at revision 1.
        var op = Operation(); op.retain(4); op.delete(1)
        let result = IntentionChecker.check(history(userDeleted: 1, deleteOp: op))
        #expect(result.verdict == .invalid)
        #expect(
            result.evidence.contains(
                "c0:1 (c0, revision 2 of note-0) deleted \"X\", inserted by c1:1 after revision 0, which its author had not seen"
            ), "\(result.evidence)")
    }

    /// compose-sign-error's wrong remainder changes the composed op's base length, so peers and
    /// the server refuse it instead of applying a too-wide delete: the intention checker reports
    /// the edits that were lost with it, by op id.
    @Test func composeSignErrorIsReportedByTheIntentionChecker() throws {
        let scenario = ScenarioOverrides(faults: [.composeSignError]).apply(
            to: try BuiltinScenarios.load("convergence-smoke"))
        var caught: CheckResult?
        for seed: UInt64 in 1...50 {
            let result = Simulation.run(scenario, seed: seed)
            if let intention = result.results.first(where: { $0.checker == .intention && $0.verdict == .invalid }) {
                caught = intention
                break
            }
        }
        let evidence = try #require(
            caught, "compose-sign-error was not reported by the intention checker within 50 seeds"
        ).evidence
        #expect(evidence.contains { $0.contains("was abandoned") || $0.contains("a too-wide delete") }, "\(evidence)")
    }

    @Test func originalProtocolLossesAreFindingsNotViolations() {
        var h = History(
            clientNames: ["c0"], clientDocuments: [0], documentNames: ["note-0"], initialTexts: ["ab"],
            protocolVersion: 1)
        let op = Operation.replace(in: 2, at: 2, inserting: "lost")
        h.append(.edit(client: 0, position: 2, deleted: 0, inserted: "lost"), at: 1)
        h.append(.invoke(client: 0, opId: "c0:1", op: op, baseRevision: 0), at: 1)
        h.append(.send(client: 0, opId: "c0:1", op: op, revision: 0), at: 1)
        h.append(.disconnect(client: 0, cause: "nemesis"), at: 2)
        h.append(.failed(client: 0, opId: "c0:1", code: "dropped: the server sent its full state"), at: 3)
        h.append(.quiescence(reached: true, ticksAfterHeal: 1), at: 4)
        h.append(.serverFinal(document: 0, text: "ab", revision: 0, historyCount: 0), at: 4)
        let result = IntentionChecker.check(h)
        #expect(result.verdict == .valid)
        #expect(
            result.findings == [
                "c0:1 (c0) was lost (dropped: the server sent its full state): inserted \"lost\", deleted 0 scalars; the original protocol throws unacknowledged edits away on reconnect"
            ])
        // Under protocol 2 the same loss is a violation.
        var h2 = History(
            clientNames: ["c0"], clientDocuments: [0], documentNames: ["note-0"], initialTexts: ["ab"],
            protocolVersion: 2)
        for e in h.entries { h2.append(e.event, at: e.time) }
        #expect(IntentionChecker.check(h2).verdict == .invalid)
    }

    /// flaky-network under the original protocol: valid, but the edits its reconnects lost are listed.
    @Test func originalProtocolRunListsItsLossesAsFindings() throws {
        var scenario = try BuiltinScenarios.load("flaky-network")
        scenario.protocolVersion = 1
        let result = Simulation.run(scenario, seed: 1)
        let intention = try #require(result.results.first { $0.checker == .intention })
        #expect(intention.verdict == .valid, "\(intention.evidence)")
        #expect(!intention.findings.isEmpty)
        #expect(
            intention.findings.first?.contains("the original protocol throws unacknowledged edits away on reconnect")
                == true, "\(intention.findings)")
    }
}
