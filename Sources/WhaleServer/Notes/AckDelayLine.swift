import Foundation

/// A test hook (`whalesim serve --delay-acks MS`, ``ServerConfiguration/ackDelay``): holds every
/// outbox item that applied an op (its ack to the author and its broadcast) for a fixed delay
/// before delivering it, so a regression gate can be shown a server that is measurably slower.
///
/// Items leave in the order they came (one thread, one FIFO, due times never decreasing), so
/// an item that applied no op but follows a held one waits for it: the outbox's order is kept.
/// The server only builds a line when the delay is above zero; otherwise delivery is unchanged.
final class AckDelayLine: @unchecked Sendable {
    private struct Held {
        var due: ContinuousClock.Instant
        var deliver: @Sendable () -> Void
    }

    let delay: Duration
    private let condition = NSCondition()
    private var queue: [Held] = []
    private var head = 0
    private var lastDue: ContinuousClock.Instant?
    private var started = false
    private var stopped = false

    init(delay: Duration) {
        self.delay = delay
    }

    /// Queues `deliver`, due after the delay when `delayed` (an op was applied), else at once
    /// but never before anything queued earlier.
    func enqueue(delayed: Bool, _ deliver: @escaping @Sendable () -> Void) {
        condition.lock()
        defer { condition.unlock() }
        if stopped {
            condition.unlock()
            deliver()
            condition.lock()
            return
        }
        var due = ContinuousClock.now + (delayed ? delay : .zero)
        if let lastDue, lastDue > due { due = lastDue }
        lastDue = due
        queue.append(Held(due: due, deliver: deliver))
        if !started {
            started = true
            let thread = Thread { [self] in self.loop() }
            thread.name = "whalesim.ack-delay"
            thread.start()
        }
        condition.signal()
    }

    /// Delivers whatever is still held at once and ends the thread.
    func stop() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
    }

    private func loop() {
        condition.lock()
        while true {
            if head == queue.count {
                queue.removeAll(keepingCapacity: true)
                head = 0
                if stopped { break }
                condition.wait()
                continue
            }
            let item = queue[head]
            let now = ContinuousClock.now
            if item.due > now, !stopped {
                let wait = now.duration(to: item.due)
                let seconds = Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18
                _ = condition.wait(until: Date().addingTimeInterval(seconds))
                continue
            }
            head += 1
            condition.unlock()
            item.deliver()
            condition.lock()
        }
        condition.unlock()
    }
}
