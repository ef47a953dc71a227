import NIOCore

/// One direction of one connection: chunks waiting for their departure time, and what a
/// partition holds. Departure times only grow, so a chunk never leaves before the one read
/// ahead of it, whatever the jitter or a change of conditions.
struct ChunkQueue {
    private(set) var waiting = CircularBuffer<(at: NIODeadline, buffer: ByteBuffer)>()
    /// Held by a partition, in arrival order; they go before anything newer on heal.
    private(set) var held: [ByteBuffer] = []
    /// Bytes waiting or held: above a bound the connection stops reading from the sender.
    private(set) var bytes = 0
    /// The departure time of the last chunk queued.
    private var lastAt = NIODeadline.uptimeNanoseconds(0)
    /// When the bandwidth cap has finished sending the last chunk (before its latency).
    private var sentEnd = NIODeadline.uptimeNanoseconds(0)

    var isEmpty: Bool { waiting.isEmpty && held.isEmpty }
    var nextAt: NIODeadline? { waiting.first?.at }

    /// Queues a chunk under `c`: it is sent at the cap's pace after everything before it, then
    /// travels `latencyMs + jitterMs` more, and never leaves before its predecessor.
    mutating func enqueue(_ buffer: ByteBuffer, now: NIODeadline, conditions c: ProxyConditions, jitterMs: Int) {
        var sent = now
        if let rate = c.bandwidthBytesPerSecond, rate > 0 {
            let transmit = TimeAmount.nanoseconds(Int64(buffer.readableBytes) * 1_000_000_000 / Int64(rate))
            sent = max(now, sentEnd) + transmit
            sentEnd = sent
        }
        let at = max(sent + .milliseconds(Int64(c.latencyMs + jitterMs)), lastAt)
        lastAt = at
        waiting.append((at, buffer))
        bytes += buffer.readableBytes
    }

    mutating func hold(_ buffer: ByteBuffer) {
        held.append(buffer)
        bytes += buffer.readableBytes
    }

    /// Hands back what a partition held, emptying the hold.
    mutating func takeHeld() -> [ByteBuffer] {
        let chunks = held
        held = []
        bytes -= chunks.reduce(0) { $0 + $1.readableBytes }
        return chunks
    }

    /// Removes and returns the chunks whose time has come, in order.
    mutating func popDue(now: NIODeadline) -> [ByteBuffer] {
        var due: [ByteBuffer] = []
        while let first = waiting.first, first.at <= now { due.append(waiting.removeFirst().buffer) }
        bytes -= due.reduce(0) { $0 + $1.readableBytes }
        return due
    }

    /// Everything waiting or held is thrown away (half-open); returns how many chunks.
    mutating func discardAll() -> Int {
        let n = waiting.count + held.count
        waiting.removeAll()
        held = []
        bytes = 0
        return n
    }
}
