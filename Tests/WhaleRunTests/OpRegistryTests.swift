import Testing
@testable import WhaleRun

/// The op registry keeps two generations of ops: an op is found for at least a generation after
/// its invoke (its ack, remote applies and resends), is forgotten after two, and what it holds
/// stays bounded however long the run (issue 21's flat runner).
@Suite struct OpRegistryTests {
    @Test func anOpIsFoundForAGenerationAndForgottenAfterTwo() {
        let r = OpRegistry(keepSeconds: 10)
        r.invoked(opId: "a:1", client: 3, atUs: 0)
        r.sent(messageId: "m1", opId: "a:1")
        #expect(r.op("a:1")?.client == 3)
        r.invoked(opId: "a:2", client: 4, atUs: 10_000_000)  // a new generation starts: a:1 is older, still found
        #expect(r.op("a:1")?.invokedUs == 0)
        #expect(r.opId(messageId: "m1", opId: nil) == "a:1")
        r.crossedDrop(["a:1", "a:2"])
        #expect(r.op("a:1")?.crossedDrop == true)
        #expect(r.op("a:2")?.crossedDrop == true)
        r.invoked(opId: "a:3", client: 4, atUs: 20_000_000)  // two generations on: a:1 is gone
        #expect(r.op("a:1") == nil)
        #expect(r.opId(messageId: "m1", opId: nil) == nil)
        #expect(r.op("a:2")?.client == 4)
        #expect(r.opId(messageId: "m9", opId: "own") == "own")
    }

    @Test func aResendOfAKnownOpKeepsItsFirstInvokeTime() {
        let r = OpRegistry(keepSeconds: 10)
        r.invoked(opId: "a:1", client: 0, atUs: 5)
        r.invoked(opId: "a:2", client: 0, atUs: 12_000_000)
        r.invoked(opId: "a:1", client: 0, atUs: 13_000_000)  // found in the older generation
        #expect(r.op("a:1")?.invokedUs == 5)
    }

    @Test func whatItHoldsStaysBoundedAsTheRunGoesOn() {
        let r = OpRegistry(keepSeconds: 1)
        var most = 0, invoked = 0
        // An hour of ops, one each 500 µs, sampled: about 21 a second reach the registry.
        for i in 0..<(3_600 * 2_000) where i % 97 == 0 {
            r.invoked(opId: "c:\(i)", client: i % 1000, atUs: Int64(i) * 500)
            most = max(most, r.count)
            invoked += 1
        }
        #expect(invoked > 70_000)
        #expect(most <= 2 * (2_000 / 97 + 1))  // two one-second generations, whatever the length
    }
}

/// Ids of whalesim's own form (`PREFIX:N`) are held as numbers; every other id by its string.
/// Either way an op is found by the id it was invoked under, and only by that id.
@Suite struct OpRegistryIdFormTests {
    @Test func idsOfEveryFormAreFoundByExactlyTheirOwnId() {
        let r = OpRegistry(keepSeconds: 10)
        let ids = [
            "3f2a-uuid:0", "3f2a-uuid:7", "3f2a-uuid:07", "3f2a-uuid:", "no-colon", "x:y:12", "x:y",
            "c:1099511627775", "c:1099511627776", "c:99999999999999999999", "c:-1", "c:1a", "é:5", "",
        ]
        for (i, id) in ids.enumerated() { r.invoked(opId: id, client: i, atUs: Int64(i)) }
        for (i, id) in ids.enumerated() { #expect(r.op(id)?.client == i, "\(id)") }
        #expect(r.count == ids.count)
        // A number that reads the same but is written differently is another id.
        #expect(r.op("3f2a-uuid:007") == nil)
        #expect(r.op("3f2a-uuid:8") == nil)
        #expect(r.op("other:7") == nil)
        #expect(r.op("x:12") == nil)
    }

    @Test func aDropIsMarkedOnTheOpInWhicheverGenerationHoldsIt() {
        let r = OpRegistry(keepSeconds: 10)
        r.invoked(opId: "p:1", client: 1, atUs: 0)
        r.invoked(opId: "odd", client: 2, atUs: 0)
        r.invoked(opId: "q:1", client: 3, atUs: 10_000_000)  // p:1 and odd are now the older generation
        r.crossedDrop(["p:1", "odd", "q:1", "never:1"])
        #expect(r.op("p:1")?.crossedDrop == true)
        #expect(r.op("odd")?.crossedDrop == true)
        #expect(r.op("q:1")?.crossedDrop == true)
        #expect(r.op("never:1") == nil)
        #expect(r.op("q:2") == nil)
    }

    @Test func aClientWithManyOpsIsFoundAcrossAGenerationChange() {
        let r = OpRegistry(keepSeconds: 1)
        for n in 0..<5_000 { r.invoked(opId: "client-\(n % 50):\(n)", client: n % 50, atUs: Int64(n) * 300) }
        // 1.5 s of ops: the first second's are the older generation, the rest the current one.
        #expect(r.op("client-0:0")?.invokedUs == 0)
        #expect(r.op("client-49:4999")?.invokedUs == Int64(4_999 * 300))
        #expect(r.op("client-1:0") == nil)
        #expect(r.count == 5_000)
    }
}

/// A cursor names the connection it came from; the recorder finds the client from its id,
/// registered once, whatever the redial (`ID`, `ID.2`, `ID.17`).
@Suite struct ConnectionIdTests {
    @Test func aRedialsConnectionIsFoundByItsClientsId() {
        let ids = ["c007.mwy5v14f": 6, "c010": 9]
        #expect(DocumentRecorder.clientIndex(of: "c007.mwy5v14f", in: ids) == 6)
        #expect(DocumentRecorder.clientIndex(of: "c007.mwy5v14f.2", in: ids) == 6)
        #expect(DocumentRecorder.clientIndex(of: "c007.mwy5v14f.17", in: ids) == 6)
        #expect(DocumentRecorder.clientIndex(of: "c010.3", in: ids) == 9)
        // Not a redial of a registered id: nothing.
        #expect(DocumentRecorder.clientIndex(of: "c007.mwy5v14f.x", in: ids) == nil)
        #expect(DocumentRecorder.clientIndex(of: "c007.mwy5v14f.", in: ids) == nil)
        #expect(DocumentRecorder.clientIndex(of: "c007", in: ids) == nil)
        #expect(DocumentRecorder.clientIndex(of: "c011.2", in: ids) == nil)
        #expect(DocumentRecorder.clientIndex(of: "", in: ids) == nil)
    }
}
