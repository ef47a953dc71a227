/// Compiled plans by query text, least recently used evicted first. Parsing and resolving cost
/// more than evaluating an indexed filter, and load runs repeat a handful of query texts.
struct QueryCache: Sendable {
    let capacity: Int
    private var entries: [String: (plan: Plan, lastUse: UInt64)] = [:]
    private var clock: UInt64 = 0

    init(capacity: Int) { self.capacity = capacity }

    mutating func get(_ text: String) -> Plan? {
        guard let entry = entries[text] else { return nil }
        clock += 1
        entries[text] = (entry.plan, clock)
        return entry.plan
    }

    mutating func put(_ text: String, _ plan: Plan) {
        clock += 1
        if entries.count >= capacity, entries[text] == nil,
            let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key
        {
            entries[oldest] = nil
        }
        entries[text] = (plan, clock)
    }

    var count: Int { entries.count }
}

extension Org {
    /// The compiled plan of `text`, from the cache or compiled now (errors are not cached).
    func compiledQuery(_ text: String) throws(SalesforceError) -> Plan {
        if let plan = queryCache.withLock({ $0.get(text) }) { return plan }
        let plan = try Compiler.compile(text, org: self)
        queryCache.withLock { $0.put(text, plan) }
        return plan
    }
}
