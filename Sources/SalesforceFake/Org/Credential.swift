/// A login principal from `credentials.json`: SOAP login takes `password + securityToken`,
/// OAuth password grant the same; `userId` is the User record the session acts as.
public struct Credential: Hashable, Sendable {
    public var username: String
    public var password: String
    public var securityToken: String
    public var userId: String

    public init(username: String, password: String, securityToken: String, userId: String) {
        self.username = username
        self.password = password
        self.securityToken = securityToken
        self.userId = userId
    }

    /// Whether `password` (as a client sends it: password then token, or password alone) matches.
    public func accepts(password given: String) -> Bool {
        given == password + securityToken || given == password
    }
}
