/// Where a request goes, decided from its method-independent path. Trailing slashes and empty
/// segments are ignored; segments are percent-decoded.
enum Route: Sendable {
    case soapLogin
    case oauthToken
    case oauthAuthorize
    case oauthRevoke
    /// `/id/{orgId}/{userId}`: the identity URL an OAuth response's `id` names.
    case identity(orgId: String, userId: String)
    case versions
    case resources(version: String)
    case query(version: String, all: Bool)
    case queryMore(version: String, all: Bool, locator: String)
    case globalDescribe(version: String)
    case sobject(version: String, type: String)
    case describe(version: String, type: String)
    case record(version: String, type: String, id: String)
    case limits(version: String)
    case composite(version: String)
    /// `/services/data/vXX.X/...` with a version this org does not serve.
    case unsupportedVersion
    case notFound

    init(_ request: SFRequest) {
        let segments = request.path.split(separator: "/").map { QueryString.decodePath($0) }
        self = Route.match(segments)
    }

    private static func match(_ s: [String]) -> Route {
        if s.count == 3, s[0] == "id" { return .identity(orgId: s[1], userId: s[2]) }
        guard s.count >= 2, s[0] == "services" else { return .notFound }
        switch s[1] {
        case "Soap":
            // /services/Soap/u/59.0 and /services/Soap/c/59.0 (partner and enterprise).
            if s.count == 4, s[2] == "u" || s[2] == "c" { return .soapLogin }
            return .notFound
        case "oauth2":
            if s.count == 3, s[2] == "token" { return .oauthToken }
            if s.count == 3, s[2] == "authorize" { return .oauthAuthorize }
            if s.count == 3, s[2] == "revoke" { return .oauthRevoke }
            return .notFound
        case "data":
            break
        default:
            return .notFound
        }
        if s.count == 2 { return .versions }
        guard let version = parseVersion(s[2]) else { return s.count == 3 ? .unsupportedVersion : .notFound }
        let rest = Array(s.dropFirst(3))
        guard let first = rest.first else { return .resources(version: version) }
        switch (first, rest.count) {
        case ("query", 1), ("queryAll", 1): return .query(version: version, all: first == "queryAll")
        case ("query", 2), ("queryAll", 2):
            return .queryMore(version: version, all: first == "queryAll", locator: rest[1])
        case ("sobjects", 1): return .globalDescribe(version: version)
        case ("sobjects", 2): return .sobject(version: version, type: rest[1])
        case ("sobjects", 3) where rest[2] == "describe": return .describe(version: version, type: rest[1])
        case ("sobjects", 3): return .record(version: version, type: rest[1], id: rest[2])
        case ("limits", 1): return .limits(version: version)
        case ("composite", 1): return .composite(version: version)
        default: return .notFound
        }
    }

    /// `v59.0` → `59.0`; anything else → nil.
    static func parseVersion(_ segment: String) -> String? {
        guard segment.hasPrefix("v") else { return nil }
        let number = segment.dropFirst()
        let parts = number.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2,
            parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) })
        else { return nil }
        return String(number)
    }

    var version: String? {
        switch self {
        case .resources(let v), .query(let v, _), .queryMore(let v, _, _), .globalDescribe(let v),
            .sobject(let v, _), .describe(let v, _), .record(let v, _, _), .limits(let v), .composite(let v):
            return v
        default:
            return nil
        }
    }

    /// REST resources under `/services/data/vXX.X` (they need a session and carry `Sforce-Limit-Info`).
    var needsSession: Bool { version != nil }
    var isREST: Bool { version != nil }

    var endpoint: SFEndpoint {
        switch self {
        case .soapLogin: return .soapLogin
        case .oauthToken: return .oauthToken
        case .oauthAuthorize: return .oauthAuthorize
        case .oauthRevoke: return .oauthRevoke
        case .identity: return .identity
        case .versions: return .versions
        case .resources: return .resources
        case .query: return .query
        case .queryMore: return .queryMore
        case .globalDescribe: return .globalDescribe
        case .sobject: return .sobject
        case .describe: return .describe
        case .record: return .record
        case .limits: return .limits
        case .composite: return .composite
        case .unsupportedVersion, .notFound: return .unknown
        }
    }

    /// Fault draws for requests without a token are scoped by what identifies the caller.
    func anonymousClientKey(_ request: SFRequest) -> String {
        switch self {
        case .soapLogin:
            return "login:" + (SOAPLogin.element("username", in: request.bodyText) ?? "")
        case .oauthRevoke:
            return "revoke"
        case .oauthToken:
            let form = QueryString.parameters(request.bodyText)
            return "oauth:" + (form["username"] ?? form["refresh_token"] ?? form["client_id"] ?? "")
        case .oauthAuthorize:
            let q = request.queryParameters
            return "authorize:" + (q["login_hint"] ?? q["username"] ?? q["client_id"] ?? "")
        default:
            return "anonymous"
        }
    }
}
