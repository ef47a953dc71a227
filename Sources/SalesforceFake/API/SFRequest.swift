/// One HTTP request as the fake Salesforce sees it, with no socket behind it.
///
/// The live server (SalesforceHTTP) builds one per request; tests build them by hand:
/// ```swift
/// let response = fake.handle(SFRequest(method: "GET", target: "/services/data/"))
/// ```
public struct SFRequest: Sendable {
    /// Upper-case HTTP method (`GET`, `POST`, ...).
    public var method: String
    /// The raw path, still percent-encoded, without the query string.
    public var path: String
    /// The raw query string after `?` (still encoded), empty when there is none.
    public var query: String
    /// Header fields in arrival order; names compare case-insensitively.
    public var headers: [(name: String, value: String)]
    /// The body bytes (empty for GET).
    public var body: [UInt8]
    /// `scheme://host:port` of the listener the request came through, set by the server. It becomes
    /// the SOAP `serverUrl` host and the OAuth `instance_url`; nil uses `https://` + the Host header,
    /// then `FakeSalesforce.defaultBaseURL`.
    public var baseURL: String?

    public init(
        method: String, path: String, query: String = "", headers: [(name: String, value: String)] = [],
        body: [UInt8] = []
    ) {
        self.method = method.uppercased()
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }

    /// Splits a request target such as `/services/data/v59.0/query?q=SELECT+Id+FROM+Account`.
    public init(method: String, target: String, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        if let mark = target.firstIndex(of: "?") {
            self.init(
                method: method, path: String(target[..<mark]), query: String(target[target.index(after: mark)...]),
                headers: headers, body: body)
        } else {
            self.init(method: method, path: target, headers: headers, body: body)
        }
    }

    /// Convenience for a UTF-8 body.
    public init(method: String, target: String, headers: [(name: String, value: String)] = [], body: String) {
        self.init(method: method, target: target, headers: headers, body: Array(body.utf8))
    }

    /// The first header with this name (case-insensitive), nil when absent.
    public func header(_ name: String) -> String? {
        let lower = name.lowercased()
        return headers.first(where: { $0.name.lowercased() == lower })?.value
    }

    /// The body decoded as UTF-8 (invalid bytes repaired), for form and XML bodies.
    public var bodyText: String { String(decoding: body, as: UTF8.self) }

    /// Query-string parameters decoded with `+` as space (first occurrence wins).
    public var queryParameters: [String: String] { QueryString.parameters(query) }
}
