import Foundation

/// Replaces secrets with named placeholders before anything reaches a session file: passwords,
/// access and refresh tokens, Salesforce session ids and client secrets. A secret seen once (a
/// login's tokens) is known by its value afterwards, wherever it shows (a header, a frame, a
/// query string), and always gets the same placeholder, `{{accessToken#2}}`: the replay knows
/// which of its own live values to put there.
///
/// ```swift
/// var r = SecretRedactor()
/// r.redact(.object(["password": .string("hunter2")]))   // {"password": "{{password#1}}"}
/// ```
public struct SecretRedactor: Sendable {
    /// Secret value → placeholder.
    public private(set) var known: [String: String] = [:]
    private var ordinals: [String: Int] = [:]
    /// Known secrets of 8 bytes or more by their first 8 bytes (longest first), so finding them
    /// inside a text is one pass over its bytes, not one search per secret (with a thousand
    /// sessions' tokens known, the search per secret was most of a recording proxy's time).
    private var byPrefix: [UInt64: [[UInt8]]] = [:]

    public init() {}

    /// Whether a JSON key, form field or query parameter names a secret.
    public static func isSecretKey(_ key: String) -> Bool {
        let k = key.lowercased()
        return k.contains("password") || k.contains("token") || k.contains("secret") || k == "sessionid"
            || k == "session_id" || k == "sid" || k == "authorization"
    }

    /// The placeholder kind of a key: `accessToken`, `refreshToken`, `password`, ….
    static func kind(of key: String) -> String {
        let k = key.lowercased()
        if k.contains("refresh") { return "refreshToken" }
        if k.contains("password") { return "password" }
        if k.contains("secret") { return "clientSecret" }
        if k == "sessionid" || k == "session_id" || k == "sid" { return "salesforceSession" }
        if k == "access_token" || k == "instance_token" { return "salesforceSession" }
        if k.contains("token") || k == "authorization" { return "accessToken" }
        return "secret"
    }

    /// The placeholder for `value` under `kind`, the same every time the value shows.
    public mutating func placeholder(for value: String, kind: String) -> String {
        if let p = known[value] { return p }
        if value.hasPrefix("{{") && value.hasSuffix("}}") { return value }
        let n = (ordinals[kind] ?? 0) + 1
        ordinals[kind] = n
        let p = "{{\(kind)#\(n)}}"
        known[value] = p
        let bytes = Array(value.utf8)
        if bytes.count >= 8 {
            byPrefix[Self.key(bytes[0..<8]), default: []].append(bytes)
            byPrefix[Self.key(bytes[0..<8])]!.sort { $0.count > $1.count }
        }
        return p
    }

    /// A JSON value with secrets (by key, and every known secret value) replaced.
    public mutating func redact(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let o):
            var out: [String: JSONValue] = [:]
            for key in o.keys.sorted() {
                let v = o[key]!
                if Self.isSecretKey(key), case .string(let s) = v, !s.isEmpty {
                    out[key] = .string(placeholder(for: s, kind: Self.kind(of: key)))
                } else {
                    out[key] = redact(v)
                }
            }
            return .object(out)
        case .array(let a): return .array(a.map { redact($0) })
        case .string(let s): return .string(redactKnown(s))
        default: return value
        }
    }

    /// `text` with every known secret value replaced by its placeholder: the whole text, or any
    /// secret of 8 bytes or more inside it.
    public func redactKnown(_ text: String) -> String {
        if let p = known[text] { return p }
        guard !byPrefix.isEmpty else { return text }
        let bytes = Array(text.utf8)
        guard bytes.count >= 8 else { return text }
        var out: [UInt8] = []
        var changed = false
        var copied = 0
        var i = 0
        var window = Self.key(bytes[0..<8])
        while i + 8 <= bytes.count {
            if let candidates = byPrefix[window],
                let secret = candidates.first(where: {
                    bytes.count - i >= $0.count && bytes[i..<(i + $0.count)].elementsEqual($0)
                })
            {
                out += bytes[copied..<i]
                out += Array(known[String(decoding: secret, as: UTF8.self)]!.utf8)
                i += secret.count
                copied = i
                changed = true
                if i + 8 <= bytes.count { window = Self.key(bytes[i..<(i + 8)]) }
                continue
            }
            i += 1
            if i + 8 <= bytes.count { window = window << 8 | UInt64(bytes[i + 7]) }
        }
        guard changed else { return text }
        out += bytes[copied...]
        return String(decoding: out, as: UTF8.self)
    }

    static func key(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// An `Authorization` header's value: `Bearer X`, `OAuth X` or a bare token, the token a placeholder.
    public mutating func redactAuthorization(_ value: String) -> String {
        let parts = value.split(separator: " ", maxSplits: 1).map(String.init)
        if parts.count == 2, ["bearer", "oauth", "basic"].contains(parts[0].lowercased()) {
            let kind = parts[0].lowercased() == "oauth" ? "salesforceSession" : "accessToken"
            return parts[0] + " " + placeholder(for: parts[1], kind: kind)
        }
        return placeholder(for: value, kind: "accessToken")
    }

    /// A query string or form body (`a=1&password=x`): secret fields become placeholders.
    public mutating func redactForm(_ text: String) -> String {
        text.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            guard kv.count == 2 else { return redactKnown(String(pair)) }
            let key = kv[0].removingPercentEncoding ?? kv[0]
            if Self.isSecretKey(key), !kv[1].isEmpty {
                let value = kv[1].removingPercentEncoding ?? kv[1]
                return kv[0] + "=" + placeholder(for: value, kind: Self.kind(of: key))
            }
            return kv[0] + "=" + redactKnown(kv[1])
        }.joined(separator: "&")
    }

    /// XML (Salesforce's SOAP login): `<password>`, `<sessionId>` and known secrets replaced.
    public mutating func redactXML(_ text: String) -> String {
        var out = text
        for tag in ["password", "sessionId", "sf:sessionId", "n1:password"] {
            let open = "<\(tag)>"
            let close = "</\(tag)>"
            var search = out.startIndex
            while let o = out.range(of: open, range: search..<out.endIndex),
                let c = out.range(of: close, range: o.upperBound..<out.endIndex)
            {
                let value = String(out[o.upperBound..<c.lowerBound])
                let p = placeholder(
                    for: value, kind: Self.kind(of: tag.split(separator: ":").last.map(String.init) ?? tag))
                out.replaceSubrange(o.upperBound..<c.lowerBound, with: p)
                search = out.index(o.upperBound, offsetBy: p.count)
            }
        }
        return redactKnown(out)
    }
}
