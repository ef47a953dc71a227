/// Who is asking: the user id from the access token and that user's organization. The live
/// server builds it from the JWT; the model checks that the user exists in that organization.
///
/// ```swift
/// let caller = Caller(userId: "u-ann", organizationId: "org-1")
/// ```
public struct Caller: Codable, Hashable, Sendable {
    public var userId: String
    public var organizationId: String
    public init(userId: String, organizationId: String) {
        self.userId = userId
        self.organizationId = organizationId
    }
}
