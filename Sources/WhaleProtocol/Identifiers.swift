/// Identifies one client instance (one socket, one app window). Ordered so that broadcasts and
/// iterations are deterministic: the server sends to clients in ascending `ClientID` order.
public struct ClientID: Hashable, Comparable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let rawValue: String
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { rawValue = value }
    public static func < (lhs: ClientID, rhs: ClientID) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { rawValue }
}

/// Which protocol a connection speaks: the original Whaler protocol, or whalesim's extensions
/// (`?protocol=2` or the `Whalesim-Protocol: 2` header; PROTOCOL.md §3).
public enum ProtocolVersion: Int, Sendable, Hashable, Codable, CaseIterable {
    /// PROTOCOL.md §2, including its silences: no errors, no op ids, no resync, no cursors.
    case original = 1
    /// PROTOCOL.md §3: scalar units, errors, idempotent op ids, resync, presence and cursors.
    case v2 = 2
}
