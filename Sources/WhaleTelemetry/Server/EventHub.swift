import NIOConcurrencyHelpers

/// The server-sent-event clients of `/events` and what each has yet to read. Publishing never
/// waits for a client: each client has a buffer of ``capacity`` frames, and when a slow (or
/// vanished) client's buffer is full its oldest frame is dropped and counted, so the dashboard
/// shows the newest figures as soon as it reads again and the run never slows for it.
final class EventHub: Sendable {
    let capacity: Int
    private let state = NIOLockedValueBox(State())
    /// Held across a publish's yields (never by a client's termination): one order for every client.
    private let order = NIOLock()

    private struct State {
        var clients: [Int: AsyncStream<String>.Continuation] = [:]
        var nextID = 0
        var dropped = 0
        /// The run's points so far, then the latest snapshot frame and the final frame: what a
        /// client that joins late is sent first, so its charts start where the run started.
        var trend = TrendLog()
        var latest: String?
        var final: String?
        var closed = false
    }

    init(capacity: Int) {
        precondition(capacity > 0)
        self.capacity = capacity
    }

    /// A new client's frames: the run's points so far (`event: history`), the latest frame (and
    /// the final, once the run has ended) first.
    func subscribe() -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: String.self, bufferingPolicy: .bufferingNewest(capacity))
        // Between two publishes: the frames so far, then every later one. (Yielding under the state
        // lock is safe here: no task reads this stream yet, so nothing is resumed.)
        let id: Int? = order.withLock {
            state.withLockedValue { state in
                guard !state.closed else { return nil }
                defer { state.nextID += 1 }
                state.clients[state.nextID] = continuation
                for frame in [state.trend.sse, state.latest, state.final].compactMap({ $0 }) {
                    _ = continuation.yield(frame)
                }
                return state.nextID
            }
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLockedValue { $0.clients.removeValue(forKey: id) }
        }
        return stream
    }

    /// Hands a frame to every client's buffer, at once, dropping (and counting) the oldest of a
    /// full one. A yield only appends to a buffer, it never waits for the client.
    ///
    /// The yields happen outside the state lock: a yield resumes the client's task, which takes
    /// that task's own lock, while a client that goes away cancels its task holding that lock and
    /// then needs the state lock (its `onTermination`); holding ours across the yields deadlocked
    /// the two (both NIO loops stuck). Publishes are put in one order by a lock of their own,
    /// which no termination takes, so every client still sees the frames in one order.
    func publish(_ frame: String, final: Bool = false, snapshot: TelemetrySnapshot? = nil) {
        order.withLock {
            let clients = state.withLockedValue { state -> [AsyncStream<String>.Continuation] in
                guard !state.closed else { return [] }
                if final { state.final = frame } else { state.latest = frame }
                if let snapshot, !final { state.trend.add(snapshot) }
                return Array(state.clients.values)
            }
            var dropped = 0
            for continuation in clients {
                if case .dropped = continuation.yield(frame) { dropped += 1 }
            }
            if dropped > 0 { state.withLockedValue { $0.dropped += dropped } }
        }
    }

    /// Ends every client's stream (the server is stopping); later subscribers get an ended stream.
    func close() {
        let clients = state.withLockedValue { state in
            state.closed = true
            defer { state.clients.removeAll() }
            return Array(state.clients.values)
        }
        for continuation in clients { continuation.finish() }
    }

    var droppedFrames: Int { state.withLockedValue { $0.dropped } }
    var clientCount: Int { state.withLockedValue { $0.clients.count } }
}
