import Foundation

/// The fake Salesforce, sans-I/O: one request in, one response out. The live server (SalesforceHTTP)
/// and the in-process tests run the same logic.
///
/// ```swift
/// let org = try Org.load(directory: URL(fileURLWithPath: "Fixtures/salesforce/small"))
/// let fake = FakeSalesforce(org: org)
/// let login = fake.handle(SFRequest(method: "POST", target: "/services/oauth2/token",
///     headers: [("Content-Type", "application/x-www-form-urlencoded")],
///     body: "grant_type=password&client_id=whalesim-client&client_secret=whalesim-secret&username=admin%40whaler.test&password=whaler123TOKEN123"))
/// ```
///
/// Thread-safe: sessions, cursors, counters and the log sit behind one short lock; SOQL runs
/// outside it (the `Org` takes its own snapshot).
public final class FakeSalesforce: Sendable {
    public let org: Org
    public let config: FakeSalesforceConfig
    public let connectedApps: [ConnectedApp]
    /// Base URL used in SOAP `serverUrl`, OAuth `instance_url` and `id` when the request does not say
    /// which listener it came through (`SFRequest.baseURL`).
    public let defaultBaseURL: String
    let state: Locked<APIState>

    public init(
        org: Org, config: FakeSalesforceConfig = FakeSalesforceConfig(),
        connectedApps: [ConnectedApp] = ConnectedApp.defaults,
        defaultBaseURL: String = "https://127.0.0.1"
    ) {
        self.org = org
        self.config = config
        self.connectedApps = connectedApps
        self.defaultBaseURL = defaultBaseURL
        state = Locked(
            APIState(
                log: RequestLog(capacity: config.requestLogCapacity),
                cursors: QueryCursorStore(capacity: config.queryCursorCapacity),
                results: QueryResultCache(capacity: config.queryResultCacheCapacity)))
    }

    /// Handles one request: fault injection, routing, logging. Never throws: every failure is a
    /// Salesforce-shaped error response.
    public func handle(_ request: SFRequest) -> SFResponse {
        let started = ContinuousClock.now
        let route = Route(request)
        let token = Self.bearerToken(request)
        let (session, clientKey, counter, sequence) = state.withLock { s -> (SFSession?, String, UInt64, Int) in
            let session = token.flatMap { s.sessions[$0] }
            let key = token ?? route.anonymousClientKey(request)
            let counter = s.clientCounters[key, default: 0]
            s.clientCounters[key] = counter + 1
            s.requestsServed += 1
            return (session, key, counter, s.requestsServed)
        }
        let behaviour = config.behaviour(for: route.endpoint)
        let decision = FaultPlan.decide(
            seed: config.seed, clientKey: clientKey, counter: counter,
            endpoint: route.endpoint, behaviour: behaviour,
            authenticated: session != nil && route.needsSession)
        var outcome = Outcome()
        var response: SFResponse
        if let fault = decision.fault {
            response = inject(fault, token: token, route: route)
        } else {
            response = dispatch(route, request, session: session, outcome: &outcome)
        }
        response.delayMilliseconds = decision.delayMilliseconds
        if route.isREST {
            response.headers.append(
                (
                    "Sforce-Limit-Info",
                    "api-usage=\(min(sequence, config.dailyApiRequestsMax))/\(config.dailyApiRequestsMax)"
                ))
        }
        let elapsed = ContinuousClock.now - started
        let entry = RequestLogEntry(
            sequence: sequence, client: outcome.client ?? session?.username ?? "anonymous",
            tokenPrefix: token.map { String($0.prefix(12)) } ?? "", method: request.method, path: request.path,
            endpoint: route.endpoint, soql: outcome.soql, status: response.status, rows: outcome.rows,
            handlerMicroseconds: Int(
                elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000),
            injectedDelayMilliseconds: decision.delayMilliseconds, fault: decision.fault)
        state.withLock { $0.log.append(entry) }
        return response
    }

    /// What a handler learned for the log.
    struct Outcome {
        var client: String?
        var soql: String?
        var rows = 0
    }

    private func inject(_ fault: InjectedFault, token: String?, route: Route) -> SFResponse {
        switch fault {
        case .expiredSession:
            if let token { expireSession(token: token) }
        case .staleLocator:
            if case .queryMore(_, _, let locator) = route {
                state.withLock { $0.cursors.remove(cursorId: QueryCursorStore.cursorId(of: locator)) }
            }
        default:
            break
        }
        return fault.response
    }

    // MARK: - Controls for tests and fault scenarios

    /// Invalidates one session, as if it timed out: its next request gets 401 `INVALID_SESSION_ID`.
    /// Returns whether the token was live.
    @discardableResult
    public func expireSession(token: String) -> Bool {
        state.withLock { $0.sessions.removeValue(forKey: token) != nil }
    }

    /// Invalidates every live session (returns how many there were).
    @discardableResult
    public func expireAllSessions() -> Int {
        state.withLock { s in
            let count = s.sessions.count
            s.sessions.removeAll()
            return count
        }
    }

    /// Live sessions sorted by token.
    public var sessions: [SFSession] {
        state.withLock { $0.sessions.values.sorted { $0.token < $1.token } }
    }

    /// The kept request log, oldest first, and how many entries the bound dropped.
    public var requestLog: (entries: [RequestLogEntry], dropped: Int) {
        state.withLock { ($0.log.entries, $0.log.dropped) }
    }

    /// Query result cache hits and misses so far.
    public var queryCacheStatistics: (hits: Int, misses: Int) {
        state.withLock { ($0.results.hits, $0.results.misses) }
    }

    /// Requests handled so far.
    public var requestsServed: Int { state.withLock { $0.requestsServed } }

    /// The token after `Bearer ` or `OAuth ` in the Authorization header.
    static func bearerToken(_ request: SFRequest) -> String? {
        guard let value = request.header("Authorization") else { return nil }
        for scheme in ["Bearer ", "OAuth "] where value.count > scheme.count {
            if value.prefix(scheme.count).lowercased() == scheme.lowercased() {
                let token = value.dropFirst(scheme.count).trimmingCharacters(in: .whitespaces)
                return token.isEmpty ? nil : token
            }
        }
        return nil
    }
}

/// Everything the API layer changes at run time (the org keeps its own state).
struct APIState: Sendable {
    var sessions: [String: SFSession] = [:]
    var logins: [String: Int] = [:]
    var refreshTokens: [String: RefreshGrant] = [:]
    var authorizationCodes: [String: AuthorizationCode] = [:]
    var clientCounters: [String: UInt64] = [:]
    var requestsServed = 0
    var tokensIssued = 0
    var log: RequestLog
    var cursors: QueryCursorStore
    var results: QueryResultCache
    var rollbacks = 0
}
