import Foundation

/// Starting data for a model server: organizations, users with plain passwords (the live server
/// hashes them; the model only ever sees ``Credential/passwordHash``), accounts, contacts,
/// tasks and who tracks what. Decoded from `Fixtures/whaler/seed.json`.
///
/// ```swift
/// let seed = try ModelSeed.load(from: URL(fileURLWithPath: "Fixtures/whaler/seed.json"))
/// var model = ModelServer(restoring: seed.changes(hashing: { bcrypt($0) }))
/// ```
public struct ModelSeed: Codable, Hashable, Sendable {
    public struct SeedUser: Codable, Hashable, Sendable {
        public var id: String
        public var email: String
        public var firstName: String
        public var lastName: String
        public var isAdmin: Bool
        public var organizationId: String
        /// Plain text, for test logins only.
        public var password: String
        public init(
            id: String, email: String, firstName: String, lastName: String, isAdmin: Bool, organizationId: String,
            password: String
        ) {
            self.id = id
            self.email = email
            self.firstName = firstName
            self.lastName = lastName
            self.isAdmin = isAdmin
            self.organizationId = organizationId
            self.password = password
        }
        public var user: User {
            User(
                id: id, email: email, firstName: firstName, lastName: lastName, isAdmin: isAdmin,
                organizationId: organizationId)
        }
    }

    public struct SeedTracking: Codable, Hashable, Sendable {
        public var userId: String
        public var accountId: String
        public init(userId: String, accountId: String) {
            self.userId = userId
            self.accountId = accountId
        }
    }

    public var organizations: [Organization]
    public var users: [SeedUser]
    public var accounts: [Account]
    public var contacts: [Contact]
    public var tasks: [TaskItem]
    public var tracking: [SeedTracking]

    public init(
        organizations: [Organization] = [], users: [SeedUser] = [], accounts: [Account] = [], contacts: [Contact] = [],
        tasks: [TaskItem] = [], tracking: [SeedTracking] = []
    ) {
        self.organizations = organizations
        self.users = users
        self.accounts = accounts
        self.contacts = contacts
        self.tasks = tasks
        self.tracking = tracking
    }

    public static func load(from url: URL) throws -> ModelSeed {
        try JSONDecoder().decode(ModelSeed.self, from: Data(contentsOf: url))
    }

    /// The seed as changes for ``ModelServer/init(configuration:restoring:)``; `hashing` turns a
    /// plain password into the stored hash (bcrypt on the live server, anything in tests).
    public func changes(hashing: (String) -> String) -> [ModelChange] {
        var changes: [ModelChange] = organizations.map { .record(.organization($0)) }
        for u in users {
            changes.append(.record(.user(u.user)))
            changes.append(.credential(Credential(userId: u.id, email: u.email, passwordHash: hashing(u.password))))
        }
        changes += accounts.map { .record(.account($0)) }
        changes += contacts.map { .record(.contact($0)) }
        changes += tasks.map { .record(.task($0)) }
        changes += tracking.map {
            .record(.tracking(Tracking(userId: $0.userId, accountId: $0.accountId, tracked: true)))
        }
        // Server-made ids start past anything a seed could hold.
        changes.append(.counters(order: 0, nextId: 1000))
        return changes
    }
}
