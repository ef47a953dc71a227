/// The two ``HTTPExecutor`` implementations, by the name the CLI and scenarios use.
public enum HTTPClientKind: String, CaseIterable, Sendable {
    case curl
    case asyncHTTPClient = "async-http-client"

    /// The one the load runner uses (measured by `whalesim bench http`; docs/decisions.md).
    public static let preferred: HTTPClientKind = .curl
}

/// Builds executors by kind.
public enum HTTPExecutors {
    /// An executor of `kind` trusting `caFile` (a PEM CA) for HTTPS, nil for the system's trust store.
    public static func make(_ kind: HTTPClientKind = .preferred, caFile: String? = nil, maxConnections: Int = 1024) -> any HTTPExecutor {
        switch kind {
        case .curl: CurlMultiExecutor(caFile: caFile, maxConnections: maxConnections)
        case .asyncHTTPClient: AsyncHTTPClientExecutor(caFile: caFile, maxConnections: maxConnections)
        }
    }
}
