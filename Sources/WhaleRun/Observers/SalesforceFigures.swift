import SalesforceFake

/// The fake Salesforce's request log per endpoint, as `run.json`'s `salesforce` object.
public struct SalesforceFigures: Sendable, Codable {
    public struct Endpoint: Sendable, Codable {
        public var endpoint: String
        public var requests: Int
        public var errors: Int
        public var p50: Double?
        public var p99: Double?
    }
    public var requests: Int
    public var errors: Int
    public var unit = "ms"
    public var endpoints: [Endpoint]

    init(entries: [RequestLogEntry]) {
        var byEndpoint: [String: [RequestLogEntry]] = [:]
        for e in entries {
            let path = e.path.split(separator: "?").first.map(String.init) ?? e.path
            let key = "\(e.method) \(Self.normalize(path))"
            byEndpoint[key, default: []].append(e)
        }
        endpoints = byEndpoint.keys.sorted().map { key in
            let list = byEndpoint[key]!
            var h = LatencyHistogram()
            for e in list { h.record(us: Int64(e.handlerMicroseconds) + Int64(e.injectedDelayMilliseconds * 1000)) }
            return Endpoint(
                endpoint: key, requests: list.count, errors: list.filter { $0.status >= 400 }.count,
                p50: h.percentileMs(50), p99: h.percentileMs(99))
        }
        requests = entries.count
        errors = entries.filter { $0.status >= 400 }.count
    }

    /// Query locators and record ids vary per request; the endpoint is what stays.
    static func normalize(_ path: String) -> String {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if let q = parts.firstIndex(of: "query"), q + 1 < parts.count {
            return parts[...q].joined(separator: "/") + "/{locator}"
        }
        return path
    }
}
