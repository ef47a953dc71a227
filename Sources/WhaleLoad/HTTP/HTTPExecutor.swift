/// One HTTP request of a virtual client (Whaler REST and GraphQL, Salesforce OAuth and REST).
public struct HTTPRequestSpec: Sendable {
    public var method: String
    public var url: String
    public var headers: [(String, String)]
    public var body: [UInt8]?

    public init(method: String = "GET", url: String, headers: [(String, String)] = [], body: [UInt8]? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// A response: status, headers as received (names lowercased), body bytes.
public struct HTTPResult: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: [UInt8]

    public init(status: Int, headers: [(String, String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public var text: String { String(decoding: body, as: UTF8.self) }
}

/// The one request executor under every per-API interface of the virtual client. A transport
/// failure (refused, reset, timeout, TLS) throws ``HTTPTransportError``; any HTTP status is a result.
/// Implementations: libcurl's multi interface and AsyncHTTPClient
/// (docs/decisions/0012-virtual-client-http-executor-libcurl-multi.md says which the runner uses).
public protocol HTTPExecutor: Sendable {
    func execute(_ request: HTTPRequestSpec, timeout: Duration) async throws(HTTPTransportError) -> HTTPResult
    /// Starts the request and calls `then` once with its outcome, on whatever thread the
    /// executor finishes it: nothing waits meanwhile. For callers that keep many requests in
    /// flight at once (a restart's page refetches), where a task awaiting ``execute(_:timeout:)``
    /// for each would hold its stack for as long as the request is out.
    func start(
        _ request: HTTPRequestSpec, timeout: Duration,
        then: @escaping @Sendable (Result<HTTPResult, HTTPTransportError>) -> Void)
    /// Ends every transfer and frees the executor's threads; call once, from async code.
    func shutdown() async
}

extension HTTPExecutor {
    /// On a task that awaits ``execute(_:timeout:)``: for executors with no completion of their own.
    public func start(
        _ request: HTTPRequestSpec, timeout: Duration,
        then: @escaping @Sendable (Result<HTTPResult, HTTPTransportError>) -> Void
    ) {
        Task {
            do throws(HTTPTransportError) { then(.success(try await execute(request, timeout: timeout))) } catch {
                then(.failure(error))
            }
        }
    }
}

/// Why a request got no HTTP response at all.
public struct HTTPTransportError: Error, CustomStringConvertible, Sendable {
    public enum Kind: String, Sendable { case connect, timeout, tls, reset, other }
    public var kind: Kind
    public var message: String
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }
    public var description: String { "\(kind.rawValue): \(message)" }
}
