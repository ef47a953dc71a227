import NIOCore
import NIOHTTP1
import NIOPosix

/// A minimal HTTP/1.1 client connection with keep-alive, for load generation (`whalesim bench
/// salesforce`): one request at a time, no TLS, no redirects. A plain NIO client keeps the load
/// generator on the same event loops as the server instead of adding an HTTP client dependency
/// (docs/decisions/0005-benchmark-http-client-nio-keep-alive.md).
///
/// ```swift
/// try await KeepAliveHTTPConnection.with(host: "127.0.0.1", port: 8080) { connection in
///     let (status, body) = try await connection.get("/services/data/")
/// }
/// ```
public struct KeepAliveHTTPConnection {
    private var inbound: NIOAsyncChannelInboundStream<HTTPClientResponsePart>.AsyncIterator
    private let outbound: NIOAsyncChannelOutboundWriter<HTTPClientRequestPart>
    private let host: String

    /// Opens a connection, runs `body` with it and closes it.
    public static func with<R: Sendable>(
        host: String, port: Int,
        _ body: (inout KeepAliveHTTPConnection) async throws -> R
    ) async throws -> R {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(ChannelOptions.tcpOption(.tcp_nodelay), value: 1)
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(
                        wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            var connection = KeepAliveHTTPConnection(
                inbound: inbound.makeAsyncIterator(), outbound: outbound, host: "\(host):\(port)")
            return try await body(&connection)
        }
    }

    private init(
        inbound: NIOAsyncChannelInboundStream<HTTPClientResponsePart>.AsyncIterator,
        outbound: NIOAsyncChannelOutboundWriter<HTTPClientRequestPart>, host: String
    ) {
        self.inbound = inbound
        self.outbound = outbound
        self.host = host
    }

    /// Sends one request and reads the whole response.
    public mutating func request(
        _ method: HTTPMethod = .GET, _ target: String, headers: [(String, String)] = [],
        body: [UInt8] = []
    ) async throws -> (status: Int, body: ByteBuffer) {
        var head = HTTPRequestHead(version: .http1_1, method: method, uri: target)
        head.headers.add(name: "Host", value: host)
        for (name, value) in headers { head.headers.add(name: name, value: value) }
        if !body.isEmpty || method == .POST || method == .PATCH {
            head.headers.add(name: "Content-Length", value: String(body.count))
        }
        try await outbound.write(.head(head))
        if !body.isEmpty { try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: body)))) }
        try await outbound.write(.end(nil))
        var status = 0
        var collected = ByteBuffer()
        while let part = try await inbound.next() {
            switch part {
            case .head(let response): status = Int(response.status.code)
            case .body(var chunk): collected.writeBuffer(&chunk)
            case .end: return (status, collected)
            }
        }
        throw KeepAliveHTTPError(message: "connection closed before the response ended")
    }

    /// `GET target`.
    public mutating func get(_ target: String, headers: [(String, String)] = []) async throws -> (
        status: Int, body: ByteBuffer
    ) {
        try await request(.GET, target, headers: headers)
    }
}

/// The server closed the connection mid-response.
public struct KeepAliveHTTPError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
