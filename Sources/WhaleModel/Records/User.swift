/// A user of the app (PROTOCOL.md §1 field names).
///
/// ```swift
/// let ann = User(id: "u-ann", email: "ann@acme.test", firstName: "Ann", lastName: "Lee", isAdmin: true, organizationId: "org-1")
/// ```
public struct User: Codable, Hashable, Sendable {
    public var id: String
    public var email: String
    public var firstName: String
    public var lastName: String
    public var isAdmin: Bool
    public var organizationId: String
    public init(id: String, email: String, firstName: String, lastName: String, isAdmin: Bool, organizationId: String) {
        self.id = id
        self.email = email
        self.firstName = firstName
        self.lastName = lastName
        self.isAdmin = isAdmin
        self.organizationId = organizationId
    }
}

/// A login identity: the hash is opaque to the model (the live server hashes and verifies with
/// bcrypt; the simulator stores anything).
///
/// ```swift
/// let credential = Credential(userId: "u-ann", email: "ann@acme.test", passwordHash: "$2b$10$…")
/// ```
public struct Credential: Codable, Hashable, Sendable {
    public var userId: String
    public var email: String
    public var passwordHash: String
    public init(userId: String, email: String, passwordHash: String) {
        self.userId = userId
        self.email = email
        self.passwordHash = passwordHash
    }
}
