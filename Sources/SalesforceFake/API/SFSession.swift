/// A session the fake issued (SOAP login, OAuth grant or authorize redirect).
public struct SFSession: Sendable, Equatable {
    public var token: String
    public var username: String
    public var userId: String
    /// The connected app for OAuth sessions, nil for SOAP logins.
    public var clientId: String?
}

/// A refresh token and what it grants.
struct RefreshGrant: Sendable {
    var username: String
    var clientId: String
}

/// An authorization code from the web-server flow (single use).
struct AuthorizationCode: Sendable {
    var username: String
    var clientId: String
    var redirectURI: String
}
