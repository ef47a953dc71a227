/// A priority queue of future events ordered by `(time, sequence)`: events due at the same
/// tick come out in the order they were scheduled, so ties never depend on heap layout.
///
/// ```swift
/// var queue = EventQueue<String>()
/// queue.schedule("b", at: 5); queue.schedule("a", at: 5); queue.schedule("c", at: 1)
/// queue.pop()?.event   // "c", then "b", then "a"
/// ```
public struct EventQueue<Event>: Sendable where Event: Sendable {
    public struct Entry: Sendable {
        public let time: SimTime
        public let sequence: UInt64
        public let event: Event
        @inline(__always) func precedes(_ other: Entry) -> Bool {
            time != other.time ? time < other.time : sequence < other.sequence
        }
    }

    private var heap: [Entry] = []
    private var nextSequence: UInt64 = 0

    public init() {}

    public var isEmpty: Bool { heap.isEmpty }
    public var count: Int { heap.count }
    /// The time of the earliest event.
    public var nextTime: SimTime? { heap.first?.time }

    public mutating func schedule(_ event: Event, at time: SimTime) {
        heap.append(Entry(time: time, sequence: nextSequence, event: event))
        nextSequence += 1
        siftUp(heap.count - 1)
    }

    public mutating func pop() -> Entry? {
        guard !heap.isEmpty else { return nil }
        let top = heap[0]
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            siftDown(0)
        }
        return top
    }

    /// Drops every event for which `predicate` is true (used to cancel the workload).
    public mutating func removeAll(where predicate: (Event) -> Bool) {
        heap.removeAll { predicate($0.event) }
        // Rebuild the heap property; order among equals still follows the sequence numbers.
        var i = heap.count / 2
        while i > 0 { i -= 1; siftDown(i) }
    }

    private mutating func siftUp(_ index: Int) {
        var child = index
        let entry = heap[child]
        while child > 0 {
            let parent = (child - 1) / 2
            guard entry.precedes(heap[parent]) else { break }
            heap[child] = heap[parent]
            child = parent
        }
        heap[child] = entry
    }

    private mutating func siftDown(_ index: Int) {
        var parent = index
        let count = heap.count
        let entry = heap[parent]
        while true {
            let left = 2 * parent + 1
            guard left < count else { break }
            let right = left + 1
            var best = left
            if right < count, heap[right].precedes(heap[left]) { best = right }
            guard heap[best].precedes(entry) else { break }
            heap[parent] = heap[best]
            parent = best
        }
        heap[parent] = entry
    }
}
