import NIOConcurrencyHelpers
import NIOWebSocket
import WhaleModel
import WhaleProtocol

/// One accepted websocket: who it is, which pool it listens to, the note it has joined, and the
/// queue of frames waiting to be written. The state machines never touch the socket: they name a
/// ``ClientID`` and the registry finds this object.
final class SocketConnection: Sendable {
    /// What the writer task does next.
    enum Outgoing: Sendable {
        case text(String)
        case close(WebSocketErrorCode, String)
    }

    struct Mutable {
        /// The shard of the note this connection has joined, if any.
        var shardIndex: Int?
        /// The last note this connection was found allowed to use (protocol 2).
        var checkedNote: String?
        var queued = 0
        var slow = false
        var closed = false
    }

    let id: ClientID
    let protocolVersion: ProtocolVersion
    /// The signed-in caller (protocol 2 always; the original when its token happens to be valid).
    let caller: Caller?
    let poolId: String?
    let limiter: RateLimiter
    private let outgoing: AsyncStream<Outgoing>.Continuation
    let frames: AsyncStream<Outgoing>
    let state = NIOLockedValueBox(Mutable())

    init(id: ClientID, protocolVersion: ProtocolVersion, caller: Caller?, poolId: String?, limiter: RateLimiter) {
        self.id = id
        self.protocolVersion = protocolVersion
        self.caller = caller
        self.poolId = poolId
        self.limiter = limiter
        (frames, outgoing) = AsyncStream.makeStream(of: Outgoing.self, bufferingPolicy: .unbounded)
    }

    /// Queues a frame. Returns the queue length after it, for backpressure.
    @discardableResult
    func enqueue(_ text: String) -> Int {
        let queued = state.withLockedValue { state -> Int in
            guard !state.closed else { return -1 }
            state.queued += 1
            return state.queued
        }
        guard queued >= 0 else { return 0 }
        outgoing.yield(.text(text))
        return queued
    }

    /// The writer wrote one frame.
    func didWrite() -> Int {
        state.withLockedValue { state in
            state.queued -= 1
            return state.queued
        }
    }

    /// Asks the writer to send a close frame after what is queued, then stop.
    func close(_ code: WebSocketErrorCode, reason: String) {
        let first = state.withLockedValue { state -> Bool in
            defer { state.closed = true }
            return !state.closed
        }
        guard first else { return }
        outgoing.yield(.close(code, reason))
        outgoing.finish()
    }

    func finish() {
        state.withLockedValue { $0.closed = true }
        outgoing.finish()
    }
}

/// Every open connection by client id.
final class ConnectionRegistry: Sendable {
    private let connections = NIOLockedValueBox([ClientID: SocketConnection]())
    private let counter = NIOLockedValueBox(0)

    func nextId() -> ClientID {
        ClientID("c" + String(counter.withLockedValue { $0 += 1; return $0 }))
    }

    /// The proposed id if it is well formed (1-64 of letters, digits, `.`, `_`, `-`, `:`) and no
    /// open connection has it; otherwise a fresh one. Reserved at once, so two claims never agree.
    func claim(_ proposed: String?) -> ClientID {
        if let proposed, (1...64).contains(proposed.utf8.count),
           proposed.utf8.allSatisfy({ b in
               (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2E || b == 0x5F || b == 0x2D || b == 0x3A
           }) {
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
    }
    private let rate: Double
    private let burst: Double
    private let bucket: NIOLockedValueBox<Bucket>

    init(rate: Int, burst: Int) {
        self.rate = Double(rate)
        self.burst = Double(max(burst, 1))
        bucket = NIOLockedValueBox(Bucket(tokens: Double(max(burst, 1)), last: .now))
    }

    /// Takes one token. `nil` means allowed; otherwise whether to tell the client this time (at most
    /// one notice a second, so a flood does not turn into a flood of errors).
    func take(now: ContinuousClock.Instant = .now) -> Bool? {
        guard rate > 0 else { return nil }
        return bucket.withLockedValue { bucket in
            let elapsed = Double((now - bucket.last).components.attoseconds) / 1e18 + Double((now - bucket.last).components.seconds)
            bucket.tokens = min(burst, bucket.tokens + elapsed * rate)
            bucket.last = now
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
