import Testing
@testable import WhaleSim

@Suite struct RandomAndClockTests {
    @Test func sameSeedSameStream() {
        var a = SimRandom(seed: 7), b = SimRandom(seed: 7), c = SimRandom(seed: 8)
        let xs = (0..<100).map { _ in a.next() }
        #expect(xs == (0..<100).map { _ in b.next() })
        #expect(xs != (0..<100).map { _ in c.next() })
    }

    @Test func derivedStreamsDependOnlyOnSeedAndLabel() {
        var parent = SimRandom(seed: 42)
        let before = parent.derive(3)
        _ = parent.next(); _ = parent.next()
        var x = before, y = parent.derive(3), z = parent.derive(4)
        let first = x.next()
        #expect(first == y.next())
        #expect(first != z.next())
    }

    @Test func uniformDrawsStayInRangeAndCoverIt() {
        var rng = SimRandom(seed: 1)
        var seen = Set<Int>()
        for _ in 0..<2000 {
            let v = rng.int(in: 3...9)
            #expect((3...9).contains(v))
            seen.insert(v)
        }
        #expect(seen == Set(3...9))
    }

    @Test func weightedChoiceNeverPicksZeroWeights() {
        var rng = SimRandom(seed: 5)
        let choice = WeightedChoice([("a", 3), ("never", 0), ("b", 1)])
        var counts: [String: Int] = [:]
        for _ in 0..<4000 { counts[choice.draw(using: &rng)!, default: 0] += 1 }
        #expect(counts["never"] == nil)
        #expect(counts["a"]! > 2 * counts["b"]!)
        #expect(WeightedChoice<String>([("x", 0)]).draw(using: &rng) == nil)
    }

    @Test func delayDistributionsRespectTheirBounds() {
        var rng = SimRandom(seed: 9)
        for _ in 0..<1000 {
            #expect(DelayDistribution.fixed(4).sample(using: &rng) == 4)
            #expect((2...6).contains(DelayDistribution.uniform(min: 2, max: 6).sample(using: &rng)))
            #expect((0...50).contains(DelayDistribution.exponential(mean: 10, max: 50).sample(using: &rng)))
        }
        #expect(DelayDistribution.uniform(min: 5, max: 40).capped(at: 10) == .uniform(min: 5, max: 10))
    }

    @Test func eventQueueOrdersByTimeThenSchedulingOrder() {
        var queue = EventQueue<String>()
        queue.schedule("b", at: 5)
        queue.schedule("a", at: 5)
        queue.schedule("c", at: 1)
        queue.schedule("d", at: 5)
        var order: [String] = []
        while let e = queue.pop() { order.append(e.event) }
        #expect(order == ["c", "b", "a", "d"])
    }

    @Test func eventQueueStaysOrderedUnderRandomLoad() {
        var rng = SimRandom(seed: 3)
        var queue = EventQueue<Int>()
        for i in 0..<500 { queue.schedule(i, at: rng.int(in: 0...50)) }
        queue.removeAll { $0 % 7 == 0 }
        var last: (SimTime, UInt64) = (-1, 0)
        var n = 0
        while let e = queue.pop() {
            #expect(e.event % 7 != 0)
            #expect(e.time > last.0 || (e.time == last.0 && e.sequence > last.1))
            last = (e.time, e.sequence)
            n += 1
        }
        #expect(n == (0..<500).filter { $0 % 7 != 0 }.count)
    }

    @Test func clockOnlyMovesForward() {
        var clock = SimClock()
        clock.advance(to: 10)
        clock.advance(to: 10)
        #expect(clock.now == 10)
    }
}
