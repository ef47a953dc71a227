/// Everything the model server knows, keyed by id. Dictionaries are for lookup only: whatever is
/// listed is sorted by id first (``sorted(_:)``), so no hash order leaks into any output.
///
/// ```swift
/// var state = ModelState()
/// state.apply(.record(.organization(Organization(id: "org-1", name: "Acme"))))
/// state.changes   // the same state as changes, sorted by key (what a full dump persists)
/// ```
public struct ModelState: Codable, Hashable, Sendable {
    public var organizations: [String: Organization] = [:]
    public var users: [String: User] = [:]
    /// By user id.
    public var credentials: [String: Credential] = [:]
    public var accounts: [String: Account] = [:]
    public var contacts: [String: Contact] = [:]
    public var tasks: [String: TaskItem] = [:]
    public var assignments: [String: AssignmentEntry] = [:]
    /// Tracked account ids per user, each list sorted.
    public var tracked: [String: [String]] = [:]
    /// How many updates each pool has had (its last `seq`).
    public var poolSeqs: [String: Int] = [:]
    /// Mutations applied so far (the last one's server order).
    public var order = 0
    /// The counter behind server-made ids.
    public var nextId = 1

    public init() {}

    /// The values of `table` sorted by key.
    public static func sorted<T>(_ table: [String: T]) -> [T] {
        table.sorted { $0.key < $1.key }.map(\.value)
    }

    /// The values that pass `include`, in key order: the same as `sorted(table).filter(include)`,
    /// but only the few kept are sorted. A page fetch sorted every assignment and task of the
    /// organization to keep one account's: after the soak's third restart, 970 page fetches
    /// sorted tens of thousands of entries each while the model's lock was held, and the
    /// clients whose upgrades waited behind them caught up 5–9 s late (issue 21).
    public static func sorted<T>(_ table: [String: T], where include: (T) -> Bool) -> [T] {
        table.filter { include($0.value) }.sorted { $0.key < $1.key }.map(\.value)
    }

    public func isTracking(_ userId: String, _ accountId: String) -> Bool {
        tracked[userId]?.contains(accountId) ?? false
    }

    /// Writes one change (an upsert by key).
    public mutating func apply(_ change: ModelChange) {
        switch change {
        case .record(let record):
            switch record {
            case .organization(let r): organizations[r.id] = r
            case .user(let r): users[r.id] = r
            case .account(let r): accounts[r.id] = r
            case .contact(let r): contacts[r.id] = r
            case .task(let r): tasks[r.id] = r
            case .assignment(let r): assignments[r.id] = r
            case .tracking(let t):
                var list = tracked[t.userId] ?? []
                list.removeAll { $0 == t.accountId }
                if t.tracked {
                    list.insert(t.accountId, at: list.firstIndex { $0 > t.accountId } ?? list.count)
                }
                tracked[t.userId] = list.isEmpty ? nil : list
            }
        case .credential(let c): credentials[c.userId] = c
        case .poolSeq(let poolId, let seq): poolSeqs[poolId] = seq
        case .counters(let order, let nextId):
            self.order = order
            self.nextId = nextId
        }
    }

    /// The whole state as changes, sorted by key: replaying them into an empty state gives this one.
    public var changes: [ModelChange] {
        var all: [ModelChange] = []
        all += Self.sorted(organizations).map { .record(.organization($0)) }
        all += Self.sorted(users).map { .record(.user($0)) }
        all += Self.sorted(credentials).map { .credential($0) }
        all += Self.sorted(accounts).map { .record(.account($0)) }
        all += Self.sorted(contacts).map { .record(.contact($0)) }
        all += Self.sorted(tasks).map { .record(.task($0)) }
        all += Self.sorted(assignments).map { .record(.assignment($0)) }
        for (user, ids) in tracked.sorted(by: { $0.key < $1.key }) {
            all += ids.map { .record(.tracking(Tracking(userId: user, accountId: $0, tracked: true))) }
        }
        all += poolSeqs.sorted { $0.key < $1.key }.map { .poolSeq(poolId: $0.key, seq: $0.value) }
        all.append(.counters(order: order, nextId: nextId))
        return all.sorted { $0.key < $1.key }
    }
}
