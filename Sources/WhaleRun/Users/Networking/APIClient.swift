import Foundation
import WhaleLoad

/// The request executor as the per-API interfaces use it: JSON in and out, latency measured
/// into a named histogram, failures counted by kind. Every API of the virtual client goes
/// through one of these (constructor-injected; there is no global client).
public struct APIClient: Sendable {
    public let executor: any HTTPExecutor
    public let metrics: LiveMetrics
    public var timeout: Duration = .seconds(10)

    public init(executor: any HTTPExecutor, metrics: LiveMetrics, timeout: Duration = .seconds(10)) {
        self.executor = executor
        self.metrics = metrics
        self.timeout = timeout
    }

    /// Sends the request and returns the parsed JSON body of a 2xx response.
    public func json(_ request: HTTPRequestSpec, metric: String) async throws(APIError) -> Any {
        try json(of: try await send(request, metric: metric), for: request)
    }

    /// The parsed JSON body of `result`, the answer to `request`: a 2xx status and a body that
    /// parses, or the error counted.
    func json(of result: HTTPResult, for request: HTTPRequestSpec) throws(APIError) -> Any {
        guard (200..<300).contains(result.status) else {
            metrics.error("http:\(result.status)")
            throw APIError(
                "http:\(result.status)",
                "\(request.method) \(request.url) answered \(result.status): \(result.text.prefix(300))")
        }
        do {
            return try JSONSerialization.jsonObject(with: Data(result.body), options: [.fragmentsAllowed])
        } catch {
            metrics.error("http:bad-json")
            throw APIError(
                "http:bad-json", "\(request.method) \(request.url): the body is not JSON: \(result.text.prefix(200))")
        }
    }

    /// Starts the request and calls `then` with its outcome, measured and counted as ``send(_:metric:)``
    /// does, on the executor's own thread: nothing waits for it meanwhile (see
    /// ``HTTPExecutor/start(_:timeout:then:)``).
    func start(
        _ request: HTTPRequestSpec, metric: String, then: @escaping @Sendable (Result<HTTPResult, APIError>) -> Void
    ) {
        metrics.attempt()
        let started = metrics.clock.nowUs
        executor.start(request, timeout: timeout) { [self] outcome in
            then(measured(outcome, metric: metric, since: started))
        }
    }

    public func send(_ request: HTTPRequestSpec, metric: String) async throws(APIError) -> HTTPResult {
        metrics.attempt()
        let started = metrics.clock.nowUs
        let outcome: Result<HTTPResult, HTTPTransportError>
        do { outcome = .success(try await executor.execute(request, timeout: timeout)) } catch {
            outcome = .failure(error)
        }
        return try measured(outcome, metric: metric, since: started).get()
    }

    /// A request's outcome counted: an answer's latency into `metric`, a transport failure by kind.
    private func measured(_ outcome: Result<HTTPResult, HTTPTransportError>, metric: String, since started: Int64)
        -> Result<HTTPResult, APIError>
    {
        switch outcome {
        case .success(let result):
            metrics.latency(metric, us: metrics.clock.nowUs - started)
            return .success(result)
        case .failure(let error):
            metrics.error("transport:\(error.kind.rawValue)")
            return .failure(APIError("transport:\(error.kind.rawValue)", error.message))
        }
    }

    static func jsonBody(_ object: Any) -> [UInt8] {
        Array((try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8))
    }
}
