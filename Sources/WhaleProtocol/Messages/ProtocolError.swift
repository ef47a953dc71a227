/// The error codes of the `error` message (PROTOCOL.md §3).
public enum ProtocolErrorCode: String, Sendable, Hashable, Codable, CaseIterable {
    case unauthorized, forbidden, malformedMessage, unknownType, unknownResource
    case badRevision, badOperation, tooLarge, rateLimited
}

/// An `error` message: the server refused something; nothing was applied.
public struct ProtocolError: Error, Hashable, Sendable, CustomStringConvertible {
    public var code: ProtocolErrorCode
    public var message: String
    /// The `messageId` of the message refused, when there is one.
    public var inReplyTo: String?
    public init(_ code: ProtocolErrorCode, _ message: String, inReplyTo: String? = nil) {
        self.code = code
        self.message = message
        self.inReplyTo = inReplyTo
    }
    public var description: String { "\(code.rawValue): \(message)" }
}
