extension FakeSalesforce {
    /// Routes a request that no fault intercepted.
    func dispatch(_ route: Route, _ request: SFRequest, session: SFSession?, outcome: inout Outcome) -> SFResponse {
        let method = request.method
        switch route {
        case .soapLogin:
            guard method == "POST" else { return Self.methodNotAllowed(method, allowed: "POST") }
            return soapLogin(request, outcome: &outcome)
        case .oauthToken:
            guard method == "POST" else { return Self.methodNotAllowed(method, allowed: "POST") }
            return oauthToken(request, outcome: &outcome)
        case .oauthAuthorize:
            guard method == "GET" || method == "POST" else { return Self.methodNotAllowed(method, allowed: "GET,POST") }
            return oauthAuthorize(request, outcome: &outcome)
        case .oauthRevoke:
            guard method == "GET" || method == "POST" else { return Self.methodNotAllowed(method, allowed: "GET,POST") }
            return oauthRevoke(request)
        case .identity(let orgId, let userId):
            guard method == "GET" else { return Self.methodNotAllowed(method, allowed: "GET") }
            return identity(orgId: orgId, userId: userId, session: session, baseURL: baseURL(for: request))
        case .versions:
            guard method == "GET" || method == "HEAD" else { return Self.methodNotAllowed(method, allowed: "GET,HEAD") }
            return versions(baseURL: baseURL(for: request))
        case .unsupportedVersion, .notFound:
            return .notFound
        default:
            break
        }
        // REST resources: version first (an unknown version is an unknown resource), then the session.
        guard let version = route.version, org.settings.supportsVersion(version),
            Double(version).map({ $0 >= 37 }) ?? false
        else { return .notFound }
        guard let session else { return .invalidSession }
        outcome.client = session.username
        switch route {
        case .resources:
            guard method == "GET" else { return Self.methodNotAllowed(method, allowed: "GET,HEAD") }
            return resources(version: version)
        case .query(_, let all):
            guard method == "GET" else { return Self.methodNotAllowed(method, allowed: "GET,HEAD") }
            return query(request, version: version, includeDeleted: all, session: session, outcome: &outcome)
        case .queryMore(_, let all, let locator):
            guard method == "GET" else { return Self.methodNotAllowed(method, allowed: "GET,HEAD") }
            return queryMore(locator: locator, version: version, all: all, outcome: &outcome)
        case .globalDescribe:
            guard method == "GET" else { return Self.methodNotAllowed(method, allowed: "GET,HEAD") }
            return .json(200, globalDescribe(version: version))
        case .sobject(_, let type):
            switch method {
            case "GET": return sobjectInfo(type: type, version: version)
            case "POST": return create(type: type, body: request.body, session: session)
            default: return Self.methodNotAllowed(method, allowed: "GET,HEAD,POST")
            }
        case .describe(_, let type):
            guard method == "GET" else { return Self.methodNotAllowed(method, allowed: "GET,HEAD") }
            guard let schema = org.schema(named: type) else { return Self.unsupportedType(type) }
            return .json(200, describe(schema, version: version))
        case .record(_, let type, let id):
            switch method {
            case "GET":
                return readRecord(
                    type: type, id: id, fields: request.queryParameters["fields"], version: version, outcome: &outcome)
            case "PATCH": return update(type: type, id: id, body: request.body, session: session)
            case "DELETE": return delete(type: type, id: id)
            default: return Self.methodNotAllowed(method, allowed: "GET,HEAD,PATCH,DELETE")
            }
        case .limits:
            guard method == "GET" else { return Self.methodNotAllowed(method, allowed: "GET,HEAD") }
            return limits()
        case .composite:
            guard method == "POST" else { return Self.methodNotAllowed(method, allowed: "POST") }
            return composite(request, version: version, session: session)
        default:
            return .notFound
        }
    }

    /// `scheme://host:port` the client reached us at.
    func baseURL(for request: SFRequest) -> String {
        if let base = request.baseURL { return base }
        if let host = request.header("Host"), !host.isEmpty { return "https://" + host }
        return defaultBaseURL
    }

    static func methodNotAllowed(_ method: String, allowed: String) -> SFResponse {
        .error(405, "METHOD_NOT_ALLOWED", "HTTP Method '\(method)' not allowed. Allowed are \(allowed)")
    }

    static func unsupportedType(_ type: String) -> SFResponse {
        .error(404, "NOT_FOUND", "The requested resource does not exist")
    }

    static func response(for error: SalesforceError) -> SFResponse {
        .json(error.httpStatus, error.json)
    }

    /// `GET /services/data/`: every version the org serves, oldest first.
    func versions(baseURL: String) -> SFResponse {
        let list = org.settings.apiVersions.filter { (Double($0) ?? 0) >= 37 }.map { v -> JSONValue in
            .object([
                ("label", .string(Self.releaseLabel(v))), ("url", .string("/services/data/v\(v)")),
                ("version", .string(v)),
            ])
        }
        return .json(200, .array(list))
    }

    /// Salesforce names three releases a year; v59.0 is Winter '24, v60.0 Spring '24, v61.0 Summer '24.
    static func releaseLabel(_ version: String) -> String {
        guard let n = Double(version).map(Int.init) else { return "Release \(version)" }
        let seasons = ["Winter", "Spring", "Summer"]
        let offset = n - 59
        let index = ((offset % 3) + 3) % 3
        let year = 24 + Int((Double(offset) / 3).rounded(.down))
        let yy = ((year % 100) + 100) % 100
        return "\(seasons[index]) '\(yy < 10 ? "0" : "")\(yy)"
    }

    /// `GET /services/data/vXX.X`: the resource directory.
    func resources(version: String) -> SFResponse {
        let base = "/services/data/v\(version)"
        let names = ["composite", "limits", "query", "queryAll", "sobjects"]
        return .json(200, .object(names.map { ($0, .string("\(base)/\($0)")) }))
    }

    /// `GET /limits`: the daily API allowance reflects the requests served so far.
    func limits() -> SFResponse {
        let used = requestsServed
        let max = config.dailyApiRequestsMax
        func pair(_ m: Int, _ remaining: Int) -> JSONValue {
            .object([("Max", .int(m)), ("Remaining", .int(remaining))])
        }
        return .json(
            200,
            .object([
                ("ConcurrentAsyncGetReportInstances", pair(200, 200)),
                ("DailyApiRequests", pair(max, Swift.max(0, max - used))),
                ("DailyAsyncApexExecutions", pair(250_000, 250_000)),
                ("DailyBulkApiBatches", pair(15_000, 15_000)),
                ("DataStorageMB", pair(5, 5)),
                ("FileStorageMB", pair(20, 20)),
                ("SingleEmail", pair(15, 15)),
            ]))
    }
}
