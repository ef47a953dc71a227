/// One direction of one client's connection: a FIFO of messages with their delivery times.
/// Each message gets a link-local sequence number; a delivery event names the sequence it is
/// for, so events left over from before a disconnect (queue cleared) simply find nothing.
struct LinkQueue<Message: Sendable>: Sendable {
    struct Item: Sendable {
        var sequence: UInt64
        var deliverAt: SimTime
        var message: Message
    }
    private var items: [Item] = []
    private var head = 0
    private(set) var nextSequence: UInt64 = 0
    /// The latest delivery time handed out: a later message never arrives before it (FIFO).
    private(set) var lastDeliverAt: SimTime = 0

    var count: Int { items.count - head }
    var isEmpty: Bool { head == items.count }
    var front: Item? { head < items.count ? items[head] : nil }

    mutating func push(_ message: Message, now: SimTime, delay: Int) -> Item {
        let at = max(now + max(delay, 0), lastDeliverAt)
        lastDeliverAt = at
        let item = Item(sequence: nextSequence, deliverAt: at, message: message)
        nextSequence += 1
        items.append(item)
        return item
    }

    mutating func popFront() -> Item {
        let item = items[head]
        head += 1
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 64, head * 2 >= items.count {
            items.removeFirst(head)
            head = 0
        }
        return item
    }

    /// Drops everything in flight (a broken connection). Returns how many were lost.
    mutating func clear() -> Int {
        let lost = count
        items.removeAll(keepingCapacity: true)
        head = 0
        lastDeliverAt = 0
        return lost
    }

    /// Items whose delivery time has passed (held by a partition).
    func due(at now: SimTime) -> [Item] {
        var result: [Item] = []
        var i = head
        while i < items.count, items[i].deliverAt <= now { result.append(items[i]); i += 1 }
        return result
    }
}
