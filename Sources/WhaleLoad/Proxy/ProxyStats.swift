/// How much traffic the proxy carried and what it did to it (counters since start, except
/// `connectionsOpen`).
public struct ProxyStats: Sendable, Hashable {
    public var connectionsAccepted = 0
    public var connectionsOpen = 0
    /// Bytes written to the server (client → server), after every delay and hold.
    public var bytesUpstream = 0
    /// Bytes written to the clients (server → client).
    public var bytesDownstream = 0
    /// Connections closed by ``FaultProxy/drop(clients:)``.
    public var connectionsDropped = 0
    /// Chunks a partition held (each counted once, when it was held).
    public var chunksHeld = 0
    /// Chunks that vanished into a half-open connection.
    public var chunksDiscarded = 0

    public init() {}
}
