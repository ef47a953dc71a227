import NIOConcurrencyHelpers
import NIOCore
import NIOWebSocket
import WhaleModel
import WhaleProtocol

/// One accepted websocket: who it is, which pool it listens to, the note it has joined, and
/// its channel. The state machines never touch the socket: they name a ``ClientID`` and the
/// registry finds this object.
///
/// Frames go straight into the channel's pipeline on its event loop (``FrameBatch``), not
/// through a writer task: on a broadcast that is one hop per event loop for all recipients
/// instead of a task wake-up and an async write per frame (docs/decisions/0016-server-write-path.md).
/// A close is a job queued on the same event loop, so a close asked for after some frames
/// follows them.
final class SocketConnection: Sendable {
    struct Mutable {
        /// The shard of the note this connection has joined, if any.
        var shardIndex: Int?
        /// The last note this connection was found allowed to use (protocol 2).
        var checkedNote: String?
        /// Frames handed to the event loop and not yet written into the channel.
        var queued = 0
        var slow = false
        var closed = false
        /// Refused at the handshake: never joined a pool or a note.
        var refused = false
        /// The close frame's write, once a close was asked for.
        var closing: EventLoopFuture<Void>?
    }

    let id: ClientID
    let protocolVersion: ProtocolVersion
    /// The signed-in caller (protocol 2 always; the original when its token happens to be valid).
    let caller: Caller?
    let poolId: String?
    let limiter: RateLimiter
    let channel: any Channel
    /// How long a close waits for the peer's close frame before the socket is cut.
    private let closeTimeout: Duration
    let state = NIOLockedValueBox(Mutable())

    init(
        id: ClientID, protocolVersion: ProtocolVersion, caller: Caller?, poolId: String?, limiter: RateLimiter,
        channel: any Channel, closeTimeout: Duration
    ) {
        self.id = id
        self.protocolVersion = protocolVersion
        self.caller = caller
        self.poolId = poolId
        self.limiter = limiter
        self.channel = channel
        self.closeTimeout = closeTimeout
    }

    /// Counts a frame on its way to the event loop. Nil when the connection is closed (the frame
    /// is dropped); otherwise how many are on their way, for backpressure.
    func admit() -> Int? {
        state.withLockedValue { state in
            guard !state.closed else { return nil }
            state.queued += 1
            return state.queued
        }
    }

    /// The event loop wrote `n` admitted frames into the channel: how many are still on their
    /// way, and whether the connection is marked slow.
    func wrote(_ n: Int) -> (queued: Int, slow: Bool) {
        state.withLockedValue { state in
            state.queued -= n
            return (state.queued, state.slow)
        }
    }

    /// Frames on their way to the event loop.
    var queued: Int { state.withLockedValue { $0.queued } }

    /// Sends one frame (refusals, errors): a batch of one.
    func send(_ text: String, server: ReferenceServer) {
        guard admit() != nil else { return }
        var batch = FrameBatch()
        batch.add(self, ByteBuffer(string: text))
        batch.flush(server)
    }

    /// Sends a close frame after what was sent before, then stops sending. The peer answers with
    /// its own close and ``SocketFrameHandler`` closes the socket; a peer that does not answer
    /// within the close timeout is cut off.
    func close(_ code: WebSocketErrorCode, reason: String) {
        state.withLockedValue { state in
            guard !state.closed else { return }
            state.closed = true
            let channel = channel, timeout = closeTimeout
            // Queued behind the frames already handed to the loop (a refusal's `error`).
            state.closing = channel.eventLoop.flatSubmit {
                var data = channel.allocator.buffer(capacity: 2 + reason.utf8.count)
                data.write(webSocketErrorCode: code)
                data.writeString(String(reason.utf8.prefix(123)) ?? "")
                channel.eventLoop.scheduleTask(in: TimeAmount(timeout)) { channel.close(promise: nil) }
                return channel.writeAndFlush(WebSocketFrame(fin: true, opcode: .connectionClose, data: data))
            }
        }
    }

    /// Whether a close frame was sent (or asked for): the peer's frames after it are not read.
    var closeSent: Bool { state.withLockedValue { $0.closing != nil } }

    /// No more frames (the connection is ending).
    func finish() {
        state.withLockedValue { $0.closed = true }
    }

}

/// Frames for many connections, written with one hop per event loop: each loop writes its
/// connections' frames, then flushes each connection once. Built by the thread that delivers
/// (a note shard, the model hub), then handed over; never written inline (see ``flush(_:)``).
struct FrameBatch {
    private var groups: [(loop: any EventLoop, frames: [(SocketConnection, ByteBuffer)])] = []

    var isEmpty: Bool { groups.isEmpty }

    mutating func add(_ connection: SocketConnection, _ bytes: ByteBuffer) {
        let loop = connection.channel.eventLoop
        // A handful of event loops (one per core): a linear search beats hashing.
        if let i = groups.firstIndex(where: { $0.loop === loop }) {
            groups[i].frames.append((connection, bytes))
        } else {
            groups.append((loop, [(connection, bytes)]))
        }
    }

    /// Hands every group to its event loop, always as a job queued on it, even when the caller
    /// is already on that loop. An event loop runs its queued jobs in the order they were queued,
    /// so batches flushed in the outbox's order are written in that order; a batch written at
    /// once by a caller running on the loop would overtake the batches other threads had queued
    /// there and not yet run (issue 21: with Swift concurrency on NIO's event loops, the socket
    /// route's pump runs on a loop, and members got revision n+1 before revision n).
    func flush(_ server: ReferenceServer) {
        for group in groups {
            let frames = group.frames
            group.loop.execute { Self.write(frames, server) }
        }
    }

    private static func write(_ frames: [(SocketConnection, ByteBuffer)], _ server: ReferenceServer) {
        for (connection, bytes) in frames {
            connection.channel.write(WebSocketFrame(fin: true, opcode: .text, data: bytes), promise: nil)
        }
        var last: SocketConnection?
        for (connection, _) in frames where connection !== last {
            connection.channel.flush()
            last = connection
        }
        server.metrics.messagesSent.increment(by: frames.count)
        // Counted per connection after the writes: a full send buffer (not writable) or a long
        // queue marks the connection slow; ``SocketFrameHandler`` clears it once it drains.
        var i = 0
        while i < frames.count {
            let connection = frames[i].0
            var n = 1
            while i + n < frames.count, frames[i + n].0 === connection { n += 1 }
            let (queued, slow) = connection.wrote(n)
            let writable = connection.channel.isWritable
            if !writable || queued > server.configuration.slowClientQueue {
                server.setSlow(connection, true)
            } else if slow, writable, queued <= server.configuration.slowClientQueue / 2 {
                // Marked slow by its queue while its channel stayed writable: no writability
                // change will come to clear it (``SocketFrameHandler``), so its drained queue does.
                server.setSlow(connection, false)
            }
            i += n
        }
    }
}

/// Every open connection by client id.
final class ConnectionRegistry: Sendable {
    private let connections = NIOLockedValueBox([ClientID: SocketConnection]())
    private let counter = NIOLockedValueBox(0)

    func nextId() -> ClientID {
        ClientID(
            "c"
                + String(
                    counter.withLockedValue {
                        $0 += 1; return $0
                    }))
    }

    /// The proposed id if it is well formed (1-64 of letters, digits, `.`, `_`, `-`, `:`) and no
    /// open connection has it; otherwise a fresh one. Reserved at once, so two claims never agree.
    func claim(_ proposed: String?) -> ClientID {
        if let proposed, (1...64).contains(proposed.utf8.count),
            proposed.utf8.allSatisfy({ b in
                (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2E
                    || b == 0x5F || b == 0x2D || b == 0x3A
            })
        {
            let id = ClientID(proposed)
            let free = connections.withLockedValue { c -> Bool in
                guard c[id] == nil, !reserved.withLockedValue({ $0.contains(id) }) else { return false }
                reserved.withLockedValue { _ = $0.insert(id) }
                return true
            }
            if free { return id }
        }
        var id = nextId()
        while connections.withLockedValue({ $0[id] != nil }) { id = nextId() }
        return id
    }
    private let reserved = NIOLockedValueBox(Set<ClientID>())

    func add(_ connection: SocketConnection) {
        connections.withLockedValue { $0[connection.id] = connection }
        reserved.withLockedValue { _ = $0.remove(connection.id) }
    }
    func remove(_ id: ClientID) { _ = connections.withLockedValue { $0.removeValue(forKey: id) } }
    func get(_ id: ClientID) -> SocketConnection? { connections.withLockedValue { $0[id] } }
    var count: Int { connections.withLockedValue { $0.count } }
    /// Every connection, in client-id order.
    var all: [SocketConnection] { connections.withLockedValue { $0.values.sorted { $0.id < $1.id } } }
}

/// A token bucket: `rate` messages a second with bursts of `burst`.
final class RateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var last: ContinuousClock.Instant
        var refusedSinceNotice = 0
        var lastNotice: ContinuousClock.Instant?
        /// `rate-limit-off-by-one` only: the current window's start and count.
        var windowStart: ContinuousClock.Instant?
        var windowCount = 0
    }
    private let rate: Double
    private let burst: Double
    private let offByOne: Bool
    private let bucket: NIOLockedValueBox<Bucket>

    /// `offByOne` is the `rate-limit-off-by-one` catalog fault: a counter per window of
    /// `burst / rate` seconds (starting at its first message) that refuses the message reaching `burst`.
    init(rate: Int, burst: Int, offByOne: Bool = false) {
        self.rate = Double(rate)
        self.burst = Double(max(burst, 1))
        self.offByOne = offByOne
        bucket = NIOLockedValueBox(Bucket(tokens: Double(max(burst, 1)), last: .now))
    }

    /// Takes one token. `nil` means allowed; otherwise whether to tell the client this time (at most
    /// one notice a second, so a flood does not turn into a flood of errors).
    func take(now: ContinuousClock.Instant = .now) -> Bool? {
        guard rate > 0 else { return nil }
        return bucket.withLockedValue { bucket in
            let elapsed =
                Double((now - bucket.last).components.attoseconds) / 1e18
                + Double((now - bucket.last).components.seconds)
            bucket.tokens = min(burst, bucket.tokens + elapsed * rate)
            bucket.last = now
            if offByOne {
                // A window as long as the bucket takes to fill (burst / rate), so a burst read as
                // slowly as a debug build reads it still falls in one.
                if let start = bucket.windowStart, now - start < .seconds(burst / rate) {
                    bucket.windowCount += 1
                } else {
                    bucket.windowStart = now
                    bucket.windowCount = 1
                }
                // The defect: `>=` where `>` was meant.
                bucket.tokens = Double(bucket.windowCount) >= burst ? 0 : 1
            }
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
                return nil
            }
            bucket.refusedSinceNotice += 1
            if let last = bucket.lastNotice, now - last < .seconds(1) { return false }
            bucket.lastNotice = now
            bucket.refusedSinceNotice = 0
            return true
        }
    }
}
