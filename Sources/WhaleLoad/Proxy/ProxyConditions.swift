/// What the proxy does to one direction of a connection's bytes: a fixed delay, a seeded
/// uniform jitter on top of it, and an optional bandwidth cap.
///
/// ```swift
/// proxy.shape(ProxyConditions(latencyMs: 40, jitterMs: 10), direction: .downstream, clients: ["c1"])
/// proxy.shape(ProxyConditions(bandwidthBytesPerSecond: 64_000))   // every connection, both ways
/// ```
public struct ProxyConditions: Sendable, Hashable {
    /// Added delay for every chunk.
    public var latencyMs: Int
    /// Extra delay drawn uniformly in 0...jitterMs per chunk from the proxy's seeded stream.
    /// A chunk still never leaves before the one read ahead of it (TCP does not reorder).
    public var jitterMs: Int
    /// A cap on bytes per second per connection in this direction; nil: no cap.
    public var bandwidthBytesPerSecond: Int?

    public init(latencyMs: Int = 0, jitterMs: Int = 0, bandwidthBytesPerSecond: Int? = nil) {
        self.latencyMs = latencyMs
        self.jitterMs = jitterMs
        self.bandwidthBytesPerSecond = bandwidthBytesPerSecond
    }

    /// No delay, no cap.
    public static let none = ProxyConditions()
}

/// Which way conditions apply: `upstream` is client → server, `downstream` server → client.
public enum ProxyDirection: Sendable, Hashable, CaseIterable {
    case upstream, downstream, both

    func includes(_ one: ProxyDirection) -> Bool { self == .both || self == one }
}
