/// One thing a recorded client did or got, a line of a session file (docs/sessions.md): an HTTP
/// exchange (REST, GraphQL, Salesforce's SOQL), a websocket opened or closed, a frame either way.
/// Secrets are already placeholders here (``SecretRedactor``).
public struct SessionEvent: Hashable, Sendable, Codable {
    public enum Kind: String, Hashable, Sendable, Codable {
        /// A request and its response.
        case http
        /// A websocket upgrade the server accepted.
        case wsOpen
        /// A frame the client sent.
        case wsSend
        /// A frame the server sent.
        case wsReceive
        /// The websocket closed (either side).
        case wsClose
    }

    /// Which upstream the event went to.
    public enum Target: String, Hashable, Sendable, Codable {
        case whaler, salesforce
    }

    /// Milliseconds since the recording (or the HAR's first entry) began.
    public var t: Int
    /// The session (one per login): `s1`, `s2`, …; `s0` holds what no login accounts for.
    public var session: String
    /// The TCP connection (`c1`, …), so frames and their socket stay together.
    public var connection: String
    public var target: Target
    public var kind: Kind
    public var method: String?
    /// Path and query, as sent (`/query`, `/socket?protocol=2`).
    public var path: String?
    /// Request headers the replay needs (`ObjectId`, `Whalesim-Protocol`, `Content-Type`,
    /// `Authorization` as a placeholder), for an HTTP exchange or a websocket upgrade.
    public var headers: [String: String]?
    public var status: Int?
    /// From the request's last byte to the response's.
    public var durationMs: Int?
    public var request: JSONValue?
    public var response: JSONValue?
    /// A frame's text (a binary frame's bytes as UTF-8 when they are, else base64 with `binary`).
    public var data: String?
    public var binary: Bool?

    public init(
        t: Int, session: String, connection: String, target: Target = .whaler, kind: Kind, method: String? = nil,
        path: String? = nil, headers: [String: String]? = nil, status: Int? = nil, durationMs: Int? = nil,
        request: JSONValue? = nil, response: JSONValue? = nil, data: String? = nil, binary: Bool? = nil
    ) {
        self.t = t
        self.session = session
        self.connection = connection
        self.target = target
        self.kind = kind
        self.method = method
        self.path = path
        self.headers = headers
        self.status = status
        self.durationMs = durationMs
        self.request = request
        self.response = response
        self.data = data
        self.binary = binary
    }
}
