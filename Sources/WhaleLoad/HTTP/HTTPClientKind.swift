/// The two ``HTTPExecutor`` implementations, by the name the CLI and scenarios use.
public enum HTTPClientKind: String, CaseIterable, Sendable {
    case curl
    case asyncHTTPClient = "async-http-client"

    /// The one the load runner uses (measured by `whalesim bench http`;
    /// docs/decisions/0012-virtual-client-http-executor-libcurl-multi.md).
    public static let preferred: HTTPClientKind = .curl

    /// The executors in this build: AsyncHTTPClient only with the package's default trait
    /// `BenchAsyncHTTPClient`, which `scripts/whalesim` leaves out (only `bench http` measures it).
    #if BenchAsyncHTTPClient
        public static let built: [HTTPClientKind] = [.curl, .asyncHTTPClient]
    #else
        public static let built: [HTTPClientKind] = [.curl]
    #endif

    /// Why this build cannot make `self`, or nil if it can.
    public var notBuilt: String? {
        HTTPClientKind.built.contains(self)
            ? nil
            : "this build leaves AsyncHTTPClient out (scripts/whalesim builds without the package's default traits, to "
                + "start sooner); `swift build -c release` includes it"
    }
}

/// Builds executors by kind.
public enum HTTPExecutors {
    /// An executor of `kind` trusting `caFile` (a PEM CA) for HTTPS, nil for the system's trust store.
    public static func make(_ kind: HTTPClientKind = .preferred, caFile: String? = nil, maxConnections: Int = 1024)
        -> any HTTPExecutor
    {
        switch kind {
        case .curl: CurlMultiExecutor(caFile: caFile, maxConnections: maxConnections)
        case .asyncHTTPClient:
            #if BenchAsyncHTTPClient
                AsyncHTTPClientExecutor(caFile: caFile, maxConnections: maxConnections)
            #else
                preconditionFailure("async-http-client: \(kind.notBuilt ?? "")")
            #endif
        }
    }

    /// The live runner's executor for `clients` virtual users. Its load comes in bursts: a few
    /// requests in flight at a time (3 to 64 in any 10 s of the soak, `WHALESIM_HTTP_LOG=1`), then
    /// a server restart and every model page refetching at once (400 to 900 in flight). What a
    /// burst makes should go with it (issue 21), so with curl: idle keep-alive connections beyond
    /// `max(64, clients / 16)` close as their transfers end (kept for the 30 s idle limit, a
    /// thousand of them held some 3 MB for as long), and so do the easy handles beyond as many
    /// (a burst's thousand handles, some 5 KB each, idled 3 to 6 s in the pool before its trim
    /// freed them, which held a restart's peak for as long), and each handle reads into 1 KB, not
    /// 4 (the answers are a few KB; a handle keeps its buffer while it idles in the pool).
    public static func forRunner(_ kind: HTTPClientKind = .preferred, clients: Int) -> any HTTPExecutor {
        let idle = max(64, clients / 16)
        switch kind {
        case .curl:
            return CurlMultiExecutor(
                options: .init(
                    maxConnections: 1024, idleHandlesMax: idle, idleStretch: .seconds(3),
                    idleConnectionsMax: idle, receiveBufferBytes: 1024))
        case .asyncHTTPClient:
            #if BenchAsyncHTTPClient
                return AsyncHTTPClientExecutor(maxConnections: 1024)
            #else
                preconditionFailure("async-http-client: \(kind.notBuilt ?? "")")
            #endif
        }
    }
}
