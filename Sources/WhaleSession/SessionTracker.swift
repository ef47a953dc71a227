import Foundation

/// Turns what a recorder saw (HTTP exchanges, websocket upgrades and frames, on numbered
/// connections) into ``SessionEvent``s: secrets redacted, each event given its session.
///
/// Sessions are one per login: `POST /api/user/login` starts one, and its tokens (and those a
/// refresh hands out) name it afterwards, in an `Authorization` header, a query string or a
/// frame. A connection keeps the session it last carried. Salesforce traffic belongs to the
/// session that last logged in when its OAuth or SOAP login happened, and then to whoever holds
/// that Salesforce session. What no login accounts for is session `s0`.
/// Not thread-safe: one recorder feeds it in order.
public struct SessionTracker: Sendable {
    public private(set) var redactor = SecretRedactor()
    /// Placeholder → session.
    private var owners: [String: String] = [:]
    private var byConnection: [String: String] = [:]
    private var sessionCount = 0
    private var lastLogin = "s0"

    public init() {}

    /// Headers a replay needs; every other header (cookies, user agents) stays out of the file.
    static let keptHeaders: Set<String> = [
        "objectid", "whalesim-protocol", "content-type", "authorization", "sec-websocket-protocol", "soapaction",
    ]

    static func isLogin(_ method: String, _ path: String) -> Bool {
        method == "POST" && path.split(separator: "?").first.map { $0.hasSuffix("/api/user/login") } == true
    }

    static func isSalesforceLogin(_ method: String, _ path: String) -> Bool {
        method == "POST"
            && (path.hasPrefix("/services/oauth2/token") || path.hasPrefix("/services/Soap/u/")
                || path.hasPrefix("/services/Soap/c/"))
    }

    /// A body as the file keeps it: JSON as JSON, a form or XML as redacted text, other text as
    /// text, bytes that are not UTF-8 as `{"base64": …}`.
    mutating func body(_ bytes: [UInt8], contentType: String?) -> JSONValue? {
        guard !bytes.isEmpty else { return nil }
        if let json = JSONValue.parse(bytes) { return redactor.redact(json) }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            return .object(["base64": .string(Data(bytes).base64EncodedString())])
        }
        let type = contentType?.lowercased() ?? ""
        if type.contains("x-www-form-urlencoded") { return .string(redactor.redactForm(text)) }
        if type.contains("xml") || text.hasPrefix("<?xml") || text.hasPrefix("<soapenv") {
            return .string(redactor.redactXML(text))
        }
        return .string(redactor.redactKnown(text))
    }

    mutating func headers(_ raw: [(String, String)]) -> [String: String]? {
        var out: [String: String] = [:]
        for (name, value) in raw where Self.keptHeaders.contains(name.lowercased()) {
            out[name] = name.lowercased() == "authorization" ? redactor.redactAuthorization(value) : value
        }
        return out.isEmpty ? nil : out
    }

    /// `path` with secret query parameters redacted.
    mutating func path(_ raw: String) -> String {
        guard let q = raw.firstIndex(of: "?") else { return raw }
        return String(raw[..<q]) + "?" + redactor.redactForm(String(raw[raw.index(after: q)...]))
    }

    /// The session an event with these placeholders in it belongs to, else the connection's.
    func owner(of texts: [String], connection: String) -> String {
        for text in texts {
            var search = text.startIndex
            while let open = text.range(of: "{{", range: search..<text.endIndex),
                let close = text.range(of: "}}", range: open.upperBound..<text.endIndex)
            {
                if let s = owners[String(text[open.lowerBound..<close.upperBound])] { return s }
                search = close.upperBound
            }
        }
        return byConnection[connection] ?? "s0"
    }

    /// Every placeholder in `value` not yet owned becomes `session`'s.
    mutating func own(_ value: JSONValue?, by session: String) {
        guard let value else { return }
        let text = value.text
        var search = text.startIndex
        while let open = text.range(of: "{{", range: search..<text.endIndex),
            let close = text.range(of: "}}", range: open.upperBound..<text.endIndex)
        {
            let p = String(text[open.lowerBound..<close.upperBound])
            if owners[p] == nil { owners[p] = session }
            search = close.upperBound
        }
    }

    /// One HTTP request and its response.
    public mutating func http(
        t: Int, connection: String, target: SessionEvent.Target, method: String, path rawPath: String,
        headers rawHeaders: [(String, String)], requestBody: [UInt8], status: Int, responseHeaders: [(String, String)],
        responseBody: [UInt8], durationMs: Int
    ) -> SessionEvent {
        let contentType = rawHeaders.first { $0.0.lowercased() == "content-type" }?.1
        let responseType = responseHeaders.first { $0.0.lowercased() == "content-type" }?.1
        let headers = headers(rawHeaders)
        let path = path(rawPath)
        let request = body(requestBody, contentType: contentType)
        let response = body(responseBody, contentType: responseType)
        var session: String
        if target == .whaler && Self.isLogin(method, rawPath) {
            sessionCount += 1
            session = "s\(sessionCount)"
            lastLogin = session
        } else if target == .salesforce && Self.isSalesforceLogin(method, rawPath) {
            session = byConnection[connection] ?? lastLogin
        } else {
            session = owner(
                of: [headers?.values.joined(separator: " ") ?? "", path, request?.text ?? ""], connection: connection)
        }
        own(request, by: session)
        own(response, by: session)
        if let headers { own(.string(headers.values.joined(separator: " ")), by: session) }
        byConnection[connection] = session
        return SessionEvent(
            t: t, session: session, connection: connection, target: target, kind: .http, method: method, path: path,
            headers: headers, status: status, durationMs: durationMs, request: request, response: response)
    }

    /// A websocket upgrade the server accepted.
    public mutating func wsOpen(
        t: Int, connection: String, target: SessionEvent.Target, path rawPath: String,
        headers rawHeaders: [(String, String)]
    ) -> SessionEvent {
        let headers = headers(rawHeaders)
        let path = path(rawPath)
        let session = owner(of: [headers?.values.joined(separator: " ") ?? "", path], connection: connection)
        byConnection[connection] = session
        return SessionEvent(
            t: t, session: session, connection: connection, target: target, kind: .wsOpen, method: "GET", path: path,
            headers: headers)
    }

    /// A complete websocket message (fragments joined), from the client or from the server.
    public mutating func wsMessage(
        t: Int, connection: String, target: SessionEvent.Target, fromClient: Bool, payload: [UInt8], binary: Bool
    ) -> SessionEvent {
        var data: String
        var isBinary: Bool?
        if let text = String(validating: payload, as: UTF8.self) {
            // Most frames name no secret: parsed (to redact by key) only when one might.
            let lower = text.lowercased()
            if ["token", "password", "secret", "session", "authorization"].contains(where: { lower.contains($0) }),
                let json = JSONValue.parse(payload)
            {
                let redacted = redactor.redact(json)
                data = redacted == json ? text : redacted.text
            } else {
                data = redactor.redactKnown(text)
            }
        } else {
            data = Data(payload).base64EncodedString()
            isBinary = true
        }
        // A frame is its socket's: the upgrade named the session. (Whaler clients send their JSON
        // in binary frames; as UTF-8 it is kept as text, `binary` marks base64 only.)
        _ = binary
        let session = byConnection[connection] ?? owner(of: [data], connection: connection)
        return SessionEvent(
            t: t, session: session, connection: connection, target: target, kind: fromClient ? .wsSend : .wsReceive,
            data: data, binary: isBinary)
    }

    public mutating func wsClose(t: Int, connection: String, target: SessionEvent.Target) -> SessionEvent {
        SessionEvent(
            t: t, session: byConnection[connection] ?? "s0", connection: connection, target: target, kind: .wsClose)
    }
}
