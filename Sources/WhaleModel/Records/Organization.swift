/// A sales team. Every user, account (and through it every contact, task and assignment)
/// belongs to exactly one, and nothing crosses organizations.
///
/// ```swift
/// let org = Organization(id: "org-1", name: "Acme Sales")
/// ```
public struct Organization: Codable, Hashable, Sendable {
    public var id: String
    public var name: String
    public init(id: String, name: String) {
        self.id = id
        self.name = name
    }
}

/// The `organization` query's answer: the caller's organization with its users (sorted by id).
public struct OrganizationView: Codable, Hashable, Sendable {
    public var organization: Organization
    public var users: [User]
    public init(organization: Organization, users: [User]) {
        self.organization = organization
        self.users = users
    }
}
