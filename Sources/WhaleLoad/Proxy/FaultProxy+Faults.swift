extension FaultProxy {
    /// Shapes the traffic of `clients` (nil: every connection without its own shaping) in
    /// `direction`. A client's own shaping wins over everyone's, direction by direction.
    public func shape(_ conditions: ProxyConditions, direction: ProxyDirection = .both, clients: Set<String>? = nil) {
        rules.withLockedValue { $0.shape(conditions, direction: direction, clients: clients) }
    }

    /// Back to no shaping for `clients` (nil: everyone's shaping and every client's).
    public func unshape(clients: Set<String>? = nil) {
        rules.withLockedValue { $0.unshape(clients: clients) }
    }

    /// Holds the bytes of `clients` (nil: everyone) both ways until ``heal(clients:)``; the
    /// connections stay open, and chunks already delayed wait too.
    public func partition(clients: Set<String>? = nil) {
        rules.withLockedValue { ProxyRules.add(clients, to: &$0.partitioned, all: &$0.partitionAll) }
    }

    /// Ends a partition (nil: every partition) and releases what it held, in order.
    public func heal(clients: Set<String>? = nil) {
        rules.withLockedValue { ProxyRules.remove(clients, from: &$0.partitioned, all: &$0.partitionAll) }
        for c in connections.withLockedValue({ Array($0.values) }) { c.rulesChanged() }
    }

    /// Closes both sides of the open connections of `clients` (nil: all) at once, with a TCP
    /// reset (SO_LINGER 0); whatever was on its way is lost.
    public func drop(clients: Set<String>? = nil) {
        let victims = matching(clients)
        count(dropped: victims.count)
        for c in victims { c.close(reset: true) }
    }

    /// From now on the bytes of `clients` (nil: all) vanish both ways, their connections' and
    /// new ones'; sockets stay open and no close reaches the other side. A connection that lost
    /// bytes stays silent after the window (its stream has a hole).
    public func halfOpen(clients: Set<String>? = nil) {
        rules.withLockedValue { ProxyRules.add(clients, to: &$0.halfOpen, all: &$0.halfOpenAll) }
        for c in connections.withLockedValue({ Array($0.values) }) { c.rulesChanged() }
    }

    /// Ends a half-open window (nil: every one). A close that happened during it now reaches
    /// the other side.
    public func endHalfOpen(clients: Set<String>? = nil) {
        rules.withLockedValue { ProxyRules.remove(clients, from: &$0.halfOpen, all: &$0.halfOpenAll) }
        for c in connections.withLockedValue({ Array($0.values) }) { c.rulesChanged() }
    }

    /// Every fault off and all shaping gone; held bytes released.
    public func healAll() {
        rules.withLockedValue { $0 = ProxyRules() }
        for c in connections.withLockedValue({ Array($0.values) }) { c.rulesChanged() }
    }
}
