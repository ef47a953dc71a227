#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import WhaleCore

/// The fault or latency decided for one request: a pure function of (seed, client key, that client's
/// request counter, endpoint behaviour). No global RNG and no clock take part, so a run replays.
public struct FaultDecision: Sendable, Equatable {
    public var delayMilliseconds: Double
    public var fault: InjectedFault?
}

/// A fault the configuration injected into a request.
public enum InjectedFault: String, Sendable, Equatable {
    case expiredSession = "expired-session"
    case requestLimit = "request-limit"
    case queryTimeout = "query-timeout"
    case staleLocator = "stale-locator"
    case serverError = "server-error"
    case unavailable = "unavailable"

    /// The Salesforce response for this fault.
    var response: SFResponse {
        switch self {
        case .expiredSession: return .invalidSession
        case .requestLimit: return .error(403, "REQUEST_LIMIT_EXCEEDED", "TotalRequests Limit exceeded.")
        case .queryTimeout:
            return .error(400, "QUERY_TIMEOUT", "Your query request was running for too long.")
        case .staleLocator: return .error(400, "INVALID_QUERY_LOCATOR", "invalid query locator")
        case .serverError:
            return .error(
                500, "UNKNOWN_EXCEPTION",
                "An unexpected error occurred. Please include this ErrorId if you contact support: 0-0 (fault injected by whalesim)"
            )
        case .unavailable:
            return .error(503, "SERVER_UNAVAILABLE", "Server temporarily unavailable (fault injected by whalesim)")
        }
    }
}

enum FaultPlan {
    /// Decides latency and fault for the `counter`-th request of the client known by `clientKey`.
    static func decide(
        seed: UInt64, clientKey: String, counter: UInt64, endpoint: SFEndpoint,
        behaviour: EndpointBehaviour, authenticated: Bool
    ) -> FaultDecision {
        var rng = SplitMix64(seed: seed ^ fnv1a(clientKey) &* 0x9E37_79B9_7F4A_7C15 ^ counter &* 0xD1B5_4A32_D192_ED03)
        let delay = sample(behaviour.latency, &rng)
        let faults = behaviour.faults
        let queryish = endpoint == .query || endpoint == .queryMore
        // Fixed order, so a configuration change to one rate leaves the others' draws in place.
        let candidates: [(InjectedFault, Double)] = [
            (.expiredSession, authenticated ? faults.expiredSession : 0),
            (.requestLimit, faults.requestLimit),
            (.queryTimeout, queryish ? faults.queryTimeout : 0),
            (.staleLocator, endpoint == .queryMore ? faults.staleLocator : 0),
            (.serverError, faults.serverError),
            (.unavailable, faults.unavailable),
        ]
        var fault: InjectedFault?
        for (kind, rate) in candidates {
            let draw = rng.nextUnit()
            if fault == nil, rate > 0, draw < rate { fault = kind }
        }
        return FaultDecision(delayMilliseconds: delay, fault: fault)
    }

    static func sample(_ latency: LatencyDistribution, _ rng: inout SplitMix64) -> Double {
        switch latency {
        case .none: return 0
        case .fixed(let ms): return max(0, ms)
        case .uniform(let lo, let hi): return max(0, lo + (hi - lo) * rng.nextUnit())
        case .logNormal(let median, let p99):
            guard median > 0 else { return 0 }
            // z of the 99th percentile is 2.3263; sigma chosen so that p99 lands where asked.
            let sigma = p99 > median ? log(p99 / median) / 2.326_347_874 : 0
            let u1 = max(rng.nextUnit(), 1e-12), u2 = rng.nextUnit()
            let z = (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
            return median * exp(sigma * z)
        }
    }

    /// FNV-1a, stable across processes (unlike `Hasher`).
    static func fnv1a(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return hash
    }
}
