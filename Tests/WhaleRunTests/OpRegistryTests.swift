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
        r.invoked(opId: "a:2", client: 4, atUs: 10_000_000) // a new generation starts: a:1 is older, still found
        #expect(r.op("a:1")?.invokedUs == 0)
        #expect(r.opId(messageId: "m1", opId: nil) == "a:1")
        r.crossedDrop(["a:1", "a:2"])
        #expect(r.op("a:1")?.crossedDrop == true)
        #expect(r.op("a:2")?.crossedDrop == true)
        r.invoked(opId: "a:3", client: 4, atUs: 20_000_000) // two generations on: a:1 is gone
        #expect(r.op("a:1") == nil)
        #expect(r.opId(messageId: "m1", opId: nil) == nil)
        #expect(r.op("a:2")?.client == 4)
        #expect(r.opId(messageId: "m9", opId: "own") == "own")
    }

    @Test func aResendOfAKnownOpKeepsItsFirstInvokeTime() {
        let r = OpRegistry(keepSeconds: 10)
        r.invoked(opId: "a:1", client: 0, atUs: 5)
        r.invoked(opId: "a:2", client: 0, atUs: 12_000_000)
        r.invoked(opId: "a:1", client: 0, atUs: 13_000_000) // found in the older generation
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
        #expect(most <= 2 * (2_000 / 97 + 1)) // two one-second generations, whatever the length
    }
}
