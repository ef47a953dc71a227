// Only in builds with the package's default trait `BenchAsyncHTTPClient` (`swift build`, the tests): the
// first run's build (scripts/whalesim) leaves it out, as only `bench http` measures it
// (docs/decisions/0055-first-run-build-without-boringssl.md).
#if BenchAsyncHTTPClient
    import AsyncHTTPClient
    import NIOCore
    import NIOHTTP1
    import NIOPosix
    import NIOSSL

    /// ``HTTPExecutor`` on AsyncHTTPClient's `HTTPClient`, on NIO's shared event loop group (the
    /// singleton the rest of the live ring uses). HTTPS trusts `caFile` only when one is given.
    ///
    /// ```swift
    /// let http = AsyncHTTPClientExecutor(caFile: server.caFile.path)
    /// let result = try await http.execute(HTTPRequestSpec(url: "\(server.httpsURL)/services/data/"), timeout: .seconds(5))
    /// await http.shutdown()
    /// ```
    ///
    /// The timeout is AsyncHTTPClient's request deadline, which covers the request until the response
    /// head; the body is collected without a deadline of its own.
    public final class AsyncHTTPClientExecutor: HTTPExecutor {
        private let client: HTTPClient

        public init(caFile: String? = nil, maxConnections: Int = 1024) {
            var tls = TLSConfiguration.makeClientConfiguration()
            if let caFile { tls.trustRoots = .file(caFile) }
            var pool = HTTPClient.Configuration.ConnectionPool(
                idleTimeout: .seconds(60),
                concurrentHTTP1ConnectionsPerHostSoftLimit: maxConnections)
            // A refused connection fails the request at once, as curl does, instead of retrying until the deadline.
            pool.retryConnectionEstablishment = false
            var configuration = HTTPClient.Configuration(
                tlsConfiguration: tls, redirectConfiguration: .disallow,
                connectionPool: pool, decompression: .disabled)
            configuration.httpVersion = .http1Only
            client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        }

        public func execute(_ request: HTTPRequestSpec, timeout: Duration) async throws(HTTPTransportError)
            -> HTTPResult
        {
            var outgoing = HTTPClientRequest(url: request.url)
            outgoing.method = HTTPMethod(rawValue: request.method.uppercased())
            for (name, value) in request.headers { outgoing.headers.add(name: name, value: value) }
            if let body = request.body { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
            let (seconds, attoseconds) = timeout.components
            let nanoseconds = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
            do {
                let response = try await client.execute(outgoing, timeout: .nanoseconds(nanoseconds))
                var buffer = try await response.body.collect(upTo: .max)
                let headers = response.headers.map { ($0.name.lowercased(), $0.value) }
                return HTTPResult(
                    status: Int(response.status.code), headers: headers,
                    body: buffer.readBytes(length: buffer.readableBytes) ?? [])
            } catch {
                throw AsyncHTTPClientErrors.transportError(error)
            }
        }

        /// Closes the pool's connections; requests still running fail. Call once.
        public func shutdown() async {
            try? await client.shutdown()
        }
    }

    /// AsyncHTTPClient's and NIO's errors as ``HTTPTransportError`` kinds.
    enum AsyncHTTPClientErrors {
        static func transportError(_ error: any Error) -> HTTPTransportError {
            HTTPTransportError(kind(error), "\(error)")
        }

        static func kind(_ error: any Error) -> HTTPTransportError.Kind {
            if let error = error as? HTTPClientError {
                switch error {
                case .deadlineExceeded, .readTimeout, .writeTimeout, .connectTimeout, .tlsHandshakeTimeout:
                    return .timeout
                case .remoteConnectionClosed, .bodyLengthMismatch:
                    return .reset
                case .invalidURL, .emptyHost, .emptyScheme, .missingSocketPath:
                    return .connect
                default:
                    return .other
                }
            }
            if error is NIOSSLError || error is BoringSSLError || error is NIOSSLExtraError { return .tls }
            if let error = error as? ChannelError {
                switch error {
                case .connectTimeout: return .timeout
                case .eof, .ioOnClosedChannel, .alreadyClosed, .outputClosed, .inputClosed: return .reset
                default: return .other
                }
            }
            if let connection = error as? NIOConnectionError {
                // Each address failed: a TLS or timeout failure among them says more than "refused".
                let kinds = connection.connectionErrors.map { kind($0.error) }
                if let specific = kinds.first(where: { $0 == .tls || $0 == .timeout }) { return specific }
                return .connect
            }
            if let io = error as? IOError {
                switch io.errnoCode {
                case ECONNREFUSED, EHOSTUNREACH, ENETUNREACH, EADDRNOTAVAIL: return .connect
                case ECONNRESET, EPIPE, ECONNABORTED: return .reset
                case ETIMEDOUT: return .timeout
                default: return .other
                }
            }
            return .other
        }
    }
#endif
