/// Why the model refused a query or a mutation; nothing was applied.
///
/// Anything outside the caller's organization is `notFound`, exactly as if it did not exist:
/// a refusal that said `forbidden` would confirm that the id exists elsewhere.
/// `forbidden` is kept for what the caller may see but not do (a non-admin creating users).
public enum ModelError: Error, Hashable, Sendable, Codable, CustomStringConvertible {
    /// No such caller (unknown user, or a user of another organization than the token says).
    case unauthorized(String)
    case forbidden(String)
    /// Unknown, or in another organization (the same answer, on purpose).
    case notFound(String)
    /// Malformed input: empty ids, an unknown kanban state or task type...
    case badInput(String)
    /// The server is not there (the simulator's crashed server).
    case unavailable(String)

    /// The short code, as the GraphQL error's `extensions.code` or a history line.
    public var code: String {
        switch self {
        case .unauthorized: "unauthorized"
        case .forbidden: "forbidden"
        case .notFound: "notFound"
        case .badInput: "badInput"
        case .unavailable: "unavailable"
        }
    }

    public var message: String {
        switch self {
        case .unauthorized(let m), .forbidden(let m), .notFound(let m), .badInput(let m), .unavailable(let m): m
        }
    }

    public var description: String { "\(code): \(message)" }
}
