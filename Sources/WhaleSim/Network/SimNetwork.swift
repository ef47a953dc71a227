/// The simulated network between N clients (indexed 0..<N) and one server: two FIFO links per
/// client (up: client → server, down: server → client), per-message delays that never reorder
/// a link, disconnects that drop everything in flight both ways, partitions that hold messages
/// until they heal, and a bound on each down link's queue that reports backpressure.
///
/// The network does not own time: `send` returns a ``Delivery`` for the run loop to schedule,
/// and `receive` hands back the message when that delivery comes due (like swift-nio's
/// `interactInMemory`, the run loop pumps until nothing moves).
///
/// ```swift
/// var net = SimNetwork<String, String>(clients: 2, delay: .fixed(3), queueBound: 8, rng: SimRandom(seed: 1))
/// net.connect(0)
/// let d = net.send(.up, client: 0, "hello", now: 0)!   // d.time == 3
/// net.receive(d)                                        // "hello"
/// ```
public struct SimNetwork<Up: Sendable, Down: Sendable>: Sendable {
    public enum Direction: UInt8, Sendable { case up, down }

    /// A message due on a link at `time`; the run loop calls ``receive(_:)`` then.
    public struct Delivery: Hashable, Sendable {
        public var direction: Direction
        public var client: Int
        public var sequence: UInt64
        public var time: SimTime
    }

    private var up: [LinkQueue<Up>]
    private var down: [LinkQueue<Down>]
    private var connected: [Bool]
    private var partitioned: [Bool]
    private var slow: [Bool]
    /// Multiplies the down link's delay (the `slow-client` nemesis).
    private var slowFactor: [Int]
    private var rng: SimRandom
    public var delay: DelayDistribution
    /// A down link holding more than this many messages is "slow" (backpressure).
    public let queueBound: Int
    public private(set) var sentCount = 0
    public private(set) var deliveredCount = 0
    public private(set) var droppedCount = 0

    public init(clients: Int, delay: DelayDistribution, queueBound: Int, rng: SimRandom) {
        up = Array(repeating: LinkQueue<Up>(), count: clients)
        down = Array(repeating: LinkQueue<Down>(), count: clients)
        connected = Array(repeating: false, count: clients)
        partitioned = Array(repeating: false, count: clients)
        slow = Array(repeating: false, count: clients)
        slowFactor = Array(repeating: 1, count: clients)
        self.delay = delay
        self.queueBound = queueBound
        self.rng = rng
    }

    public var clientCount: Int { connected.count }
    public func isConnected(_ client: Int) -> Bool { connected[client] }
    public func isPartitioned(_ client: Int) -> Bool { partitioned[client] }
    public func inFlight(_ direction: Direction, client: Int) -> Int {
        direction == .up ? up[client].count : down[client].count
    }
    /// Messages on every link (zero means the network is quiet).
    public var totalInFlight: Int {
        var n = 0
        for i in 0..<connected.count { n += up[i].count + down[i].count }
        return n
    }

    /// The message at the head of client's up link, with its sequence (nil: the link is empty).
    public func frontUp(_ client: Int) -> (sequence: UInt64, message: Up)? {
        up[client].front.map { ($0.sequence, $0.message) }
    }

    /// The message at the head of client's down link, with its sequence (nil: the link is empty).
    public func frontDown(_ client: Int) -> (sequence: UInt64, message: Down)? {
        down[client].front.map { ($0.sequence, $0.message) }
    }

    /// Opens client's connection (its links start empty).
    public mutating func connect(_ client: Int) {
        connected[client] = true
    }

    /// Breaks client's connection: everything in flight both ways is lost.
    @discardableResult
    public mutating func disconnect(_ client: Int) -> Int {
        connected[client] = false
        slow[client] = false
        let lost = up[client].clear() + down[client].clear()
        droppedCount += lost
        return lost
    }

    /// Queues a message; nil when the connection is down (the message is lost).
    public mutating func send(_ direction: Direction, client: Int, up message: Up, now: SimTime) -> Delivery? {
        guard connected[client] else { droppedCount += 1; return nil }
        sentCount += 1
        let item = up[client].push(message, now: now, delay: delay.sample(using: &rng))
        return Delivery(direction: .up, client: client, sequence: item.sequence, time: item.deliverAt)
    }

    /// Queues a server → client message; nil when the connection is down.
    public mutating func send(client: Int, down message: Down, now: SimTime) -> Delivery? {
        guard connected[client] else { droppedCount += 1; return nil }
        sentCount += 1
        let d = delay.sample(using: &rng) * slowFactor[client]
        let item = down[client].push(message, now: now, delay: d)
        return Delivery(direction: .down, client: client, sequence: item.sequence, time: item.deliverAt)
    }

    /// The up message due for `delivery`, or nil if it was lost to a disconnect or is held by
    /// a partition (``heal(_:now:)`` re-issues held deliveries).
    public mutating func receiveUp(_ delivery: Delivery) -> Up? {
        guard !partitioned[delivery.client], up[delivery.client].front?.sequence == delivery.sequence else {
            return nil
        }
        deliveredCount += 1
        return up[delivery.client].popFront().message
    }

    /// The down message due for `delivery` (see ``receiveUp(_:)``).
    public mutating func receiveDown(_ delivery: Delivery) -> Down? {
        guard !partitioned[delivery.client], down[delivery.client].front?.sequence == delivery.sequence else {
            return nil
        }
        deliveredCount += 1
        return down[delivery.client].popFront().message
    }

    /// Cuts client off: its messages wait (TCP buffers them) until ``heal(_:now:)``.
    public mutating func partition(_ client: Int) { partitioned[client] = true }

    /// Reconnects a partitioned client; returns the held deliveries to schedule now (in order).
    public mutating func heal(_ client: Int, now: SimTime) -> [Delivery] {
        guard partitioned[client] else { return [] }
        partitioned[client] = false
        var result: [Delivery] = []
        for item in up[client].due(at: now) {
            result.append(Delivery(direction: .up, client: client, sequence: item.sequence, time: now))
        }
        for item in down[client].due(at: now) {
            result.append(Delivery(direction: .down, client: client, sequence: item.sequence, time: now))
        }
        return result
    }

    /// Sets the down-link delay multiplier for client (1 = normal).
    public mutating func setSlowFactor(_ client: Int, _ factor: Int) { slowFactor[client] = max(1, factor) }

    /// Whether client's down link just crossed the bound: `true` when it went over, `false`
    /// when it drained to half the bound, nil when nothing changed. Call after sends/receives.
    public mutating func backpressureChange(_ client: Int) -> Bool? {
        let n = down[client].count
        if !slow[client], n > queueBound { slow[client] = true; return true }
        if slow[client], n <= queueBound / 2 { slow[client] = false; return false }
        return nil
    }
}
