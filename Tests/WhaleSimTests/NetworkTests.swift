import Testing
@testable import WhaleSim

@Suite struct NetworkTests {
    typealias Net = SimNetwork<Int, Int>

    /// Delivers everything scheduled, in (time, order) like the run loop does.
    func drain(_ net: inout Net, _ deliveries: [Net.Delivery]) -> [(Int, SimTime)] {
        var queue = EventQueue<Net.Delivery>()
        for d in deliveries { queue.schedule(d, at: d.time) }
        var got: [(Int, SimTime)] = []
        while let e = queue.pop() {
            let d = e.event
            if let m = (d.direction == .up ? net.receiveUp(d) : net.receiveDown(d)) { got.append((m, e.time)) }
        }
        return got
    }

    @Test func eachLinkIsFIFOWhateverTheDelays() {
        var net = Net(clients: 2, delay: .uniform(min: 0, max: 100), queueBound: 1000, rng: SimRandom(seed: 1))
        net.connect(0); net.connect(1)
        var deliveries: [Net.Delivery] = []
        for i in 0..<200 {
            deliveries.append(net.send(.up, client: 0, up: i, now: i)!)
            deliveries.append(net.send(client: 1, down: 1000 + i, now: i)!)
        }
        let got = drain(&net, deliveries)
        let up = got.map(\.0).filter { $0 < 1000 }, down = got.map(\.0).filter { $0 >= 1000 }
        #expect(up == Array(0..<200))
        #expect(down == Array(1000..<1200))
        #expect(net.totalInFlight == 0)
    }

    @Test func delaysComeFromTheDistribution() {
        var net = Net(clients: 1, delay: .fixed(7), queueBound: 10, rng: SimRandom(seed: 1))
        net.connect(0)
        let d = net.send(.up, client: 0, up: 1, now: 100)!
        #expect(d.time == 107)
        #expect(drain(&net, [d]).map(\.1) == [107])
    }

    @Test func disconnectDropsInFlightBothWaysAndLaterSendsUntilReconnect() {
        var net = Net(clients: 1, delay: .fixed(5), queueBound: 10, rng: SimRandom(seed: 1))
        net.connect(0)
        let a = net.send(.up, client: 0, up: 1, now: 0)!
        let b = net.send(client: 0, down: 2, now: 0)!
        #expect(net.disconnect(0) == 2)
        #expect(net.send(.up, client: 0, up: 3, now: 1) == nil)
        net.connect(0)
        let c = net.send(.up, client: 0, up: 4, now: 2)!
        #expect(drain(&net, [a, b, c]).map(\.0) == [4])
        #expect(net.droppedCount == 3)
    }

    @Test func partitionHoldsMessagesUntilItHeals() {
        var net = Net(clients: 2, delay: .fixed(5), queueBound: 10, rng: SimRandom(seed: 1))
        net.connect(0); net.connect(1)
        net.partition(0)
        let held = net.send(.up, client: 0, up: 1, now: 0)!
        let free = net.send(.up, client: 1, up: 2, now: 0)!
        #expect(drain(&net, [held, free]).map(\.0) == [2])
        #expect(net.inFlight(.up, client: 0) == 1)
        let reissued = net.heal(0, now: 50)
        #expect(reissued.map(\.time) == [50])
        #expect(drain(&net, reissued).map(\.0) == [1])
    }

    @Test func backpressureTurnsOnOverTheBoundAndOffWhenDrained() {
        var net = Net(clients: 1, delay: .fixed(5), queueBound: 4, rng: SimRandom(seed: 1))
        net.connect(0)
        var deliveries: [Net.Delivery] = []
        var changes: [Bool] = []
        for i in 0..<6 {
            deliveries.append(net.send(client: 0, down: i, now: 0)!)
            if let change = net.backpressureChange(0) { changes.append(change) }
        }
        #expect(changes == [true])
        for d in deliveries {
            _ = net.receiveDown(d)
            if let change = net.backpressureChange(0) { changes.append(change) }
        }
        #expect(changes == [true, false])
    }
}
