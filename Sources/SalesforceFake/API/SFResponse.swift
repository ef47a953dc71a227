/// One HTTP response from the fake Salesforce, plus the latency the live server must add before sending it.
public struct SFResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// Injected latency (from `FakeSalesforceConfig`); the sans-I/O handler never sleeps, the server does.
    public var delayMilliseconds: Double = 0

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The body as UTF-8 text.
    public var bodyText: String { String(decoding: body, as: UTF8.self) }

    /// The first header with this name (case-insensitive).
    public func header(_ name: String) -> String? {
        let lower = name.lowercased()
        return headers.first(where: { $0.name.lowercased() == lower })?.value
    }

    /// A JSON response (`application/json;charset=UTF-8`, as Salesforce labels it).
    public static func json(_ status: Int, _ value: JSONValue) -> SFResponse {
        json(status, text: value.serialized())
    }

    /// A JSON response from already serialized text.
    public static func json(_ status: Int, text: String) -> SFResponse {
        SFResponse(
            status: status, headers: [("Content-Type", "application/json;charset=UTF-8")], body: Array(text.utf8))
    }

    /// An XML response (SOAP).
    public static func xml(_ status: Int, _ text: String) -> SFResponse {
        SFResponse(status: status, headers: [("Content-Type", "text/xml;charset=UTF-8")], body: Array(text.utf8))
    }

    /// 204 No Content, as PATCH and DELETE answer.
    public static var noContent: SFResponse { SFResponse(status: 204) }

    /// The REST error shape: always an array `[{"message","errorCode"}]`.
    public static func error(_ status: Int, _ errorCode: String, _ message: String) -> SFResponse {
        json(status, .array([.object([("message", .string(message)), ("errorCode", .string(errorCode))])]))
    }

    /// 401 `INVALID_SESSION_ID`, the answer to a missing, unknown or expired token.
    public static var invalidSession: SFResponse {
        error(401, "INVALID_SESSION_ID", "Session expired or invalid")
    }

    /// 404 `NOT_FOUND` with Salesforce's wording.
    public static var notFound: SFResponse {
        error(404, "NOT_FOUND", "The requested resource does not exist")
    }
}
