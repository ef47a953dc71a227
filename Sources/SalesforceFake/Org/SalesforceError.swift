/// An error as Salesforce reports it: an `errorCode`, a `message` and the HTTP status.
/// The REST body is always a JSON array of one `{"message","errorCode"}` object (`json`).
///
/// ```swift
/// throw SalesforceError.invalidField("No such column 'Foo' on entity 'Account'")
/// ```
public struct SalesforceError: Error, Hashable, Sendable, CustomStringConvertible {
    public var errorCode: String
    public var message: String
    public var httpStatus: Int

    public init(errorCode: String, message: String, httpStatus: Int) {
        self.errorCode = errorCode
        self.message = message
        self.httpStatus = httpStatus
    }

    /// `[{"message": ..., "errorCode": ...}]`, the body of every REST error.
    public var json: JSONValue {
        .array([.object([("message", .string(message)), ("errorCode", .string(errorCode))])])
    }

    public var description: String { "\(errorCode) (\(httpStatus)): \(message)" }

    public static func malformedQuery(_ message: String) -> SalesforceError {
        SalesforceError(errorCode: "MALFORMED_QUERY", message: message, httpStatus: 400)
    }
    public static func invalidField(_ message: String) -> SalesforceError {
        SalesforceError(errorCode: "INVALID_FIELD", message: message, httpStatus: 400)
    }
    public static func invalidType(_ message: String) -> SalesforceError {
        SalesforceError(errorCode: "INVALID_TYPE", message: message, httpStatus: 400)
    }
    /// `sObject type 'Foo' is not supported.`
    public static func unsupportedType(_ name: String) -> SalesforceError {
        invalidType("sObject type '\(name)' is not supported.")
    }
    public static func notFound(_ message: String = "The requested resource does not exist") -> SalesforceError {
        SalesforceError(errorCode: "NOT_FOUND", message: message, httpStatus: 404)
    }
    public static func entityIsDeleted(_ message: String = "entity is deleted") -> SalesforceError {
        SalesforceError(errorCode: "ENTITY_IS_DELETED", message: message, httpStatus: 404)
    }
    public static func invalidSessionId(_ message: String = "Session expired or invalid") -> SalesforceError {
        SalesforceError(errorCode: "INVALID_SESSION_ID", message: message, httpStatus: 401)
    }
    public static func requestLimitExceeded(_ message: String = "TotalRequests Limit exceeded.") -> SalesforceError {
        SalesforceError(errorCode: "REQUEST_LIMIT_EXCEEDED", message: message, httpStatus: 403)
    }
    public static func invalidQueryLocator(_ message: String = "invalid query locator") -> SalesforceError {
        SalesforceError(errorCode: "INVALID_QUERY_LOCATOR", message: message, httpStatus: 400)
    }
    public static func queryTimeout(
        _ message: String = "Your query request was running for too long."
    ) -> SalesforceError {
        SalesforceError(errorCode: "QUERY_TIMEOUT", message: message, httpStatus: 400)
    }
    public static func unknownException(_ message: String = "An unexpected error occurred.") -> SalesforceError {
        SalesforceError(errorCode: "UNKNOWN_EXCEPTION", message: message, httpStatus: 500)
    }
    public static func requiredFieldMissing(_ fields: [String]) -> SalesforceError {
        SalesforceError(
            errorCode: "REQUIRED_FIELD_MISSING",
            message: "Required fields are missing: [\(fields.joined(separator: ", "))]", httpStatus: 400)
    }
    /// A field that exists but cannot be written (calculated or not createable/updateable).
    public static func invalidFieldForInsertUpdate(_ message: String) -> SalesforceError {
        SalesforceError(errorCode: "INVALID_FIELD_FOR_INSERT_UPDATE", message: message, httpStatus: 400)
    }
    /// A value of the wrong JSON type for its field, e.g. a string for a number.
    public static func jsonParserError(_ message: String) -> SalesforceError {
        SalesforceError(errorCode: "JSON_PARSER_ERROR", message: message, httpStatus: 400)
    }
    /// A picklist, email or id value Salesforce would refuse.
    public static func invalidValue(_ code: String, _ message: String) -> SalesforceError {
        SalesforceError(errorCode: code, message: message, httpStatus: 400)
    }
    public static func malformedId(_ id: String) -> SalesforceError {
        SalesforceError(errorCode: "MALFORMED_ID", message: "malformed id \(id)", httpStatus: 400)
    }
}
