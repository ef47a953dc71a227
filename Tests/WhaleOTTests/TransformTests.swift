import Testing
import WhaleOT

/// Checks TP1 on `doc` and returns the converged text.
@discardableResult
func converge(_ doc: String, _ a: Operation, _ b: Operation) throws -> String {
    let (aPrime, bPrime) = try Operation.transform(a, b)
    let viaA = try bPrime.apply(to: a.apply(to: doc))
    let viaB = try aPrime.apply(to: b.apply(to: doc))
    #expect(viaA == viaB, "TP1 broken on \(doc.debugDescription): a=\(a) b=\(b) a'=\(aPrime) b'=\(bPrime)")
    return viaA
}

@Suite("transform")
struct TransformTests {
    @Test func concurrentInsertsAtOnePositionPutTheFirstOperationLeft() throws {
        #expect(try converge("ab", op(1, "X", 1), op(1, "Y", 1)) == "aXYb")
        #expect(try converge("ab", op(1, "Y", 1), op(1, "X", 1)) == "aYXb")
        // At the start and at the end.
        #expect(try converge("ab", op("X", 2), op("Y", 2)) == "XYab")
        #expect(try converge("ab", op(2, "X"), op(2, "Y")) == "abXY")
        #expect(try converge("", op("X"), op("Y")) == "XY")
    }

    @Test func tieResultsAreExactOperations() throws {
        let (aPrime, bPrime) = try Operation.transform(op(1, "X", 1), op(1, "Y", 1))
        #expect(aPrime == op(1, "X", 2))
        #expect(bPrime == op(2, "Y", 1))
    }

    @Test func insertsAtDifferentPositions() throws {
        #expect(try converge("abc", op(1, "X", 2), op(2, "Y", 1)) == "aXbYc")
        #expect(try converge("abc", op(2, "Y", 1), op(1, "X", 2)) == "aXbYc")
    }

    @Test func insertInsideADeletedRangeSurvivesAtTheDeletionPoint() throws {
        // b deletes "bcd"; a inserts X between c and d.
        #expect(try converge("abcde", op(3, "X", 2), op(1, -3, 1)) == "aXe")
        #expect(try converge("abcde", op(1, -3, 1), op(3, "X", 2)) == "aXe")
    }

    @Test func insertAtTheEdgesOfADeletedRangeSurvives() throws {
        // At the start edge (position 1) and at the end edge (position 4) of the deleted "bcd".
        #expect(try converge("abcde", op(1, "X", 4), op(1, -3, 1)) == "aXe")
        #expect(try converge("abcde", op(4, "X", 1), op(1, -3, 1)) == "aXe")
        #expect(try converge("abcde", op(1, -3, 1), op(1, "X", 4)) == "aXe")
        #expect(try converge("abcde", op(1, -3, 1), op(4, "X", 1)) == "aXe")
    }

    @Test func overlappingDeletesHappenOnce() throws {
        #expect(try converge("abcdef", op(1, -3, 2), op(2, -3, 1)) == "af")
        #expect(try converge("abcdef", op(2, -3, 1), op(1, -3, 2)) == "af")
        // One contains the other.
        #expect(try converge("abcdef", op(1, -4, 1), op(2, -1, 3)) == "af")
        // Adjacent, not overlapping.
        #expect(try converge("abcdef", op(1, -2, 3), op(3, -2, 1)) == "af")
    }

    @Test func identicalDeletesHappenOnce() throws {
        let (aPrime, bPrime) = try Operation.transform(op(1, -2, 1), op(1, -2, 1))
        #expect(aPrime == op(2))
        #expect(bPrime == op(2))
        #expect(try converge("abcd", op(1, -2, 1), op(1, -2, 1)) == "ad")
    }

    @Test func replaceAgainstReplace() throws {
        // Both select overlapping text and type over it: both inserts survive, in the order of
        // their positions (X at 1 is before Y at 2), whichever side has tie priority.
        #expect(try converge("abcdef", op(1, "X", -3, 2), op(2, "Y", -3, 1)) == "aXYf")
        #expect(try converge("abcdef", op(2, "Y", -3, 1), op(1, "X", -3, 2)) == "aXYf")
        // Same selection typed over by both: a tie, a's text first.
        #expect(try converge("abcdef", op(1, "X", -3, 2), op(1, "Y", -3, 2)) == "aXYef")
        #expect(try converge("abcdef", op(1, "Y", -3, 2), op(1, "X", -3, 2)) == "aYXef")
    }

    @Test func nonASCIIPositionsCountScalars() throws {
        #expect(try converge("e\u{301}👍中", op(2, "X", 2), op(1, -2, 1)) == "eX中")
        #expect(try converge("👩‍💻", op(1, -1, 1), op(2, "!", 1)) == "👩!💻")
    }

    /// Known and shared with ot.js: transforming against compose(b1, b2) can order concurrent
    /// inserts differently from transforming against b1 then b2, because the canonical form
    /// moves an insert typed at the end of a deleted range to its start. Each grouping still
    /// converges (TP1), which is all the protocol relies on; a checker must not expect the
    /// server's one-op-at-a-time result from a client that transforms against its composed buffer.
    @Test func groupingCanChangeTheOrderOfConcurrentInserts() throws {
        // b1 deletes "a", then b2 types "Y" where it was; concurrently a inserts X between a and b.
        let a = op(1, "X", 1), b1 = op(-1, 1), b2 = op("Y", 1)
        let b1b2 = try Operation.compose(b1, b2)
        #expect(b1b2 == op("Y", -1, 1))
        let stepwise = try Operation.transform(Operation.transform(a, b1).aPrime, b2).aPrime
        let composed = try Operation.transform(a, b1b2).aPrime
        #expect(try stepwise.apply(to: "Yb") == "XYb")
        #expect(try composed.apply(to: "Yb") == "YXb")
        #expect(try converge("ab", a, b1b2) == "YXb")
    }

    @Test func rejectsOperationsOnDifferentDocuments() {
        #expect(throws: OTError.self) { try Operation.transform(op(3), op(2)) }
    }
}
