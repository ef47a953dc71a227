/// What the proxy does to one direction of a connection's bytes right now.
public struct ProxyConditions: Sendable, Hashable {
    /// Added delay for every chunk, each way.
    public var latencyMs: Int
    /// Uniform extra delay in 0...jitterMs per chunk (seeded); chunks never overtake each other.
    public var jitterMs: Int
    /// A cap on bytes per second each way per connection; nil: no cap.
    public var bytesPerSecond: Int?

    public init(latencyMs: Int = 0, jitterMs: Int = 0, bytesPerSecond: Int? = nil) {
        self.latencyMs = latencyMs
        self.jitterMs = jitterMs
        self.bytesPerSecond = bytesPerSecond
    }

    public static let none = ProxyConditions()
}

/// The proxy's whole state of faults: shaping for everyone or per client, partitions and
/// half-open clients. `nil` client sets mean every connection.
struct ProxyRules: Sendable {
    var global = ProxyConditions.none
    var perClient: [String: ProxyConditions] = [:]
    var partitionAll = false
    var partitioned: Set<String> = []
    var halfOpenAll = false
    var halfOpen: Set<String> = []

    func conditions(_ client: String?) -> ProxyConditions {
        client.flatMap { perClient[$0] } ?? global
    }

    func isPartitioned(_ client: String?) -> Bool { partitionAll || client.map(partitioned.contains) == true }
    func isHalfOpen(_ client: String?) -> Bool { halfOpenAll || client.map(halfOpen.contains) == true }
}

/// How much traffic the proxy carried and what it did to it.
public struct ProxyStats: Sendable, Hashable {
    public var accepted = 0
    public var open = 0
    public var bytesUp = 0
    public var bytesDown = 0
    public var dropped = 0
    public var chunksHeld = 0
    public var chunksDiscarded = 0
}
