/// The fake Salesforce's request log summary in `run.json` (`salesforce`): what the clients
/// asked of it, per endpoint, with errors and latency. Written by the live runner.
public struct SalesforceSummary: Codable, Sendable, Equatable {
    public struct Endpoint: Codable, Sendable, Equatable {
        /// `GET /services/data/vXX.X/query` and the like.
        public var endpoint: String
        public var requests: Int
        public var errors: Int
        public var p50: Double?
        public var p99: Double?
    }

    public var requests: Int
    public var errors: Int
    /// Latency unit of `p50`/`p99` ("ms").
    public var unit: String
    public var endpoints: [Endpoint]
}
