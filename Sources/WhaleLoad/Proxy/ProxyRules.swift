/// The proxy's whole state of faults at one instant: shaping for everyone and per client (per
/// direction), partitions and half-open clients. Connections read a copy under the proxy's lock
/// for every chunk, so a change applies from the next chunk on.
struct ProxyRules: Sendable {
    /// Per-client shaping per direction; a nil direction falls back to everyone's.
    struct ClientShaping: Sendable {
        var upstream: ProxyConditions?
        var downstream: ProxyConditions?
    }

    var everyoneUpstream = ProxyConditions.none
    var everyoneDownstream = ProxyConditions.none
    var perClient: [String: ClientShaping] = [:]
    var partitionAll = false
    var partitioned: Set<String> = []
    var halfOpenAll = false
    var halfOpen: Set<String> = []

    func conditions(_ client: String?, upstream: Bool) -> ProxyConditions {
        let own = client.flatMap { perClient[$0] }
        return upstream ? (own?.upstream ?? everyoneUpstream) : (own?.downstream ?? everyoneDownstream)
    }

    func isPartitioned(_ client: String?) -> Bool { partitionAll || client.map(partitioned.contains) == true }
    func isHalfOpen(_ client: String?) -> Bool { halfOpenAll || client.map(halfOpen.contains) == true }

    mutating func shape(_ c: ProxyConditions, direction: ProxyDirection, clients: Set<String>?) {
        guard let clients else {
            if direction.includes(.upstream) { everyoneUpstream = c }
            if direction.includes(.downstream) { everyoneDownstream = c }
            return
        }
        for client in clients {
            var own = perClient[client] ?? ClientShaping()
            if direction.includes(.upstream) { own.upstream = c }
            if direction.includes(.downstream) { own.downstream = c }
            perClient[client] = own
        }
    }

    mutating func unshape(clients: Set<String>?) {
        guard let clients else {
            everyoneUpstream = .none
            everyoneDownstream = .none
            perClient = [:]
            return
        }
        for client in clients { perClient[client] = nil }
    }

    /// Adds `clients` (nil: everyone) to a set of clients under a fault.
    static func add(_ clients: Set<String>?, to set: inout Set<String>, all: inout Bool) {
        if let clients { set.formUnion(clients) } else { all = true }
    }

    /// Takes `clients` out of a fault; nil ends it for everyone, named ones included.
    static func remove(_ clients: Set<String>?, from set: inout Set<String>, all: inout Bool) {
        if let clients { set.subtract(clients) } else { all = false; set = [] }
    }
}
