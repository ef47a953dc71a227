/// How the fake Salesforce misbehaves: per-endpoint latency and fault rates, all drawn from a seeded
/// RNG scoped per client token (see `FaultPlan`), so a run with the same seed replays.
///
/// ```swift
/// var config = FakeSalesforceConfig(seed: 7)
/// config.endpoints[.query] = .init(latency: .uniform(min: 5, max: 40), faults: .init(queryTimeout: 0.01))
/// let fake = FakeSalesforce(org: org, config: config)
/// ```
public struct FakeSalesforceConfig: Sendable, Codable, Equatable {
    /// Seed of every draw (latency, faults) and of issued tokens.
    public var seed: UInt64
    /// Behaviour per endpoint; endpoints not listed use `defaultBehaviour`.
    public var endpoints: [SFEndpoint: EndpointBehaviour]
    /// Behaviour of endpoints without an entry (default: no latency, no faults).
    public var defaultBehaviour: EndpointBehaviour
    /// Entries kept in the request log (oldest dropped first).
    public var requestLogCapacity: Int
    /// Open query cursors kept (oldest dropped first, then their locators answer `INVALID_QUERY_LOCATOR`).
    public var queryCursorCapacity: Int
    /// Query answers kept for repeated queries until the next write (0 turns the cache off).
    public var queryResultCacheCapacity: Int
    /// `DailyApiRequests` max reported by `/limits` and `Sforce-Limit-Info`.
    public var dailyApiRequestsMax: Int

    public init(
        seed: UInt64 = 1, endpoints: [SFEndpoint: EndpointBehaviour] = [:],
        defaultBehaviour: EndpointBehaviour = EndpointBehaviour(),
        requestLogCapacity: Int = 20_000, queryCursorCapacity: Int = 10_000,
        dailyApiRequestsMax: Int = 5_000_000, queryResultCacheCapacity: Int = 4096
    ) {
        self.seed = seed
        self.endpoints = endpoints
        self.defaultBehaviour = defaultBehaviour
        self.requestLogCapacity = requestLogCapacity
        self.queryCursorCapacity = queryCursorCapacity
        self.dailyApiRequestsMax = dailyApiRequestsMax
        self.queryResultCacheCapacity = queryResultCacheCapacity
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = FakeSalesforceConfig()
        seed = try c.decodeIfPresent(UInt64.self, forKey: .seed) ?? defaults.seed
        endpoints = try c.decodeIfPresent([SFEndpoint: EndpointBehaviour].self, forKey: .endpoints) ?? [:]
        defaultBehaviour =
            try c.decodeIfPresent(EndpointBehaviour.self, forKey: .defaultBehaviour) ?? EndpointBehaviour()
        requestLogCapacity = try c.decodeIfPresent(Int.self, forKey: .requestLogCapacity) ?? defaults.requestLogCapacity
        queryCursorCapacity =
            try c.decodeIfPresent(Int.self, forKey: .queryCursorCapacity) ?? defaults.queryCursorCapacity
        dailyApiRequestsMax =
            try c.decodeIfPresent(Int.self, forKey: .dailyApiRequestsMax) ?? defaults.dailyApiRequestsMax
        queryResultCacheCapacity =
            try c.decodeIfPresent(Int.self, forKey: .queryResultCacheCapacity) ?? defaults.queryResultCacheCapacity
    }

    /// The behaviour configured for `endpoint`.
    public func behaviour(for endpoint: SFEndpoint) -> EndpointBehaviour {
        endpoints[endpoint] ?? defaultBehaviour
    }
}

/// The endpoints faults and latency are configured for (names as used in scenario files).
public enum SFEndpoint: String, Sendable, Codable, CaseIterable, CodingKeyRepresentable {
    case soapLogin = "soap-login"
    case oauthToken = "oauth-token"
    case oauthAuthorize = "oauth-authorize"
    case oauthRevoke = "oauth-revoke"
    case identity
    case versions
    case resources
    case query
    case queryMore = "query-more"
    case globalDescribe = "global-describe"
    case describe
    case sobject
    case record
    case create
    case limits
    case composite
    case unknown
}

/// Latency and fault rates of one endpoint.
public struct EndpointBehaviour: Sendable, Codable, Equatable {
    public var latency: LatencyDistribution
    public var faults: FaultRates

    public init(latency: LatencyDistribution = .none, faults: FaultRates = FaultRates()) {
        self.latency = latency
        self.faults = faults
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        latency = try c.decodeIfPresent(LatencyDistribution.self, forKey: .latency) ?? .none
        faults = try c.decodeIfPresent(FaultRates.self, forKey: .faults) ?? FaultRates()
    }
}

/// Probabilities (0...1) of each injected fault per request. Faults that cannot happen on an endpoint
/// (a stale locator on a login) are ignored there.
public struct FaultRates: Sendable, Codable, Equatable {
    /// 401 `INVALID_SESSION_ID`; the session is really dropped, so the client must log in again.
    public var expiredSession: Double
    /// 403 `REQUEST_LIMIT_EXCEEDED`.
    public var requestLimit: Double
    /// 400 `QUERY_TIMEOUT` (query endpoints only).
    public var queryTimeout: Double
    /// 400 `INVALID_QUERY_LOCATOR` (next-page requests only); the cursor is dropped.
    public var staleLocator: Double
    /// 500 `UNKNOWN_EXCEPTION`.
    public var serverError: Double
    /// 503 `SERVER_UNAVAILABLE`.
    public var unavailable: Double

    public init(
        expiredSession: Double = 0, requestLimit: Double = 0, queryTimeout: Double = 0,
        staleLocator: Double = 0, serverError: Double = 0, unavailable: Double = 0
    ) {
        self.expiredSession = expiredSession
        self.requestLimit = requestLimit
        self.queryTimeout = queryTimeout
        self.staleLocator = staleLocator
        self.serverError = serverError
        self.unavailable = unavailable
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        expiredSession = try c.decodeIfPresent(Double.self, forKey: .expiredSession) ?? 0
        requestLimit = try c.decodeIfPresent(Double.self, forKey: .requestLimit) ?? 0
        queryTimeout = try c.decodeIfPresent(Double.self, forKey: .queryTimeout) ?? 0
        staleLocator = try c.decodeIfPresent(Double.self, forKey: .staleLocator) ?? 0
        serverError = try c.decodeIfPresent(Double.self, forKey: .serverError) ?? 0
        unavailable = try c.decodeIfPresent(Double.self, forKey: .unavailable) ?? 0
    }
}

/// A latency distribution in milliseconds.
///
/// Encoded as `{"kind":"fixed","ms":5}`, `{"kind":"uniform","min":2,"max":9}` or
/// `{"kind":"lognormal","median":20,"p99":200}`.
public enum LatencyDistribution: Sendable, Equatable, Codable {
    case none
    case fixed(Double)
    case uniform(min: Double, max: Double)
    /// Log-normal with this median and 99th percentile (p99 ≥ median).
    case logNormal(median: Double, p99: Double)

    private enum CodingKeys: String, CodingKey { case kind, ms, min, max, median, p99 }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        switch try c.decode(String.self, forKey: .kind) {
        case "none": self = .none
        case "fixed": self = .fixed(try c.decode(Double.self, forKey: .ms))
        case "uniform":
            self = .uniform(min: try c.decode(Double.self, forKey: .min), max: try c.decode(Double.self, forKey: .max))
        case "lognormal":
            self = .logNormal(
                median: try c.decode(Double.self, forKey: .median), p99: try c.decode(Double.self, forKey: .p99))
        case let other:
            throw DecodingError.dataCorruptedError(
                forKey: .kind, in: c,
                debugDescription: "unknown latency kind '\(other)' (expected none, fixed, uniform, lognormal)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .none: try c.encode("none", forKey: .kind)
        case .fixed(let ms): try c.encode("fixed", forKey: .kind); try c.encode(ms, forKey: .ms)
        case .uniform(let lo, let hi):
            try c.encode("uniform", forKey: .kind); try c.encode(lo, forKey: .min); try c.encode(hi, forKey: .max)
        case .logNormal(let median, let p99):
            try c.encode("lognormal", forKey: .kind); try c.encode(median, forKey: .median);
            try c.encode(p99, forKey: .p99)
        }
    }
}
