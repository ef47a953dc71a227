import XCTest
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A raw TCP client that keeps every byte it receives and whether its connection closed.
final class TestClient: Sendable {
    private struct State {
        var bytes: [UInt8] = []
        var closed = false
    }

    private final class Collector: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let state: NIOLockedValueBox<State>
        init(_ state: NIOLockedValueBox<State>) { self.state = state }
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let buffer = unwrapInboundIn(data)
            state.withLockedValue { $0.bytes += buffer.readableBytesView }
        }
        func channelInactive(context: ChannelHandlerContext) {
            state.withLockedValue { $0.closed = true }
        }
        func errorCaught(context: ChannelHandlerContext, error: any Error) { context.close(promise: nil) }
    }

    private let channel: any Channel
    private let state: NIOLockedValueBox<State>

    private init(channel: any Channel, state: NIOLockedValueBox<State>) {
        self.channel = channel
        self.state = state
    }

    static func connect(port: Int) async throws -> TestClient {
        let state = NIOLockedValueBox(State())
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .channelInitializer { ch in
                ch.eventLoop.makeCompletedFuture { try ch.pipeline.syncOperations.addHandler(Collector(state)) }
            }
            .connect(host: "127.0.0.1", port: port).get()
        return TestClient(channel: channel, state: state)
    }

    /// Connects and sends a websocket-style first request line naming `client`.
    static func connect(port: Int, client: String) async throws -> TestClient {
        let c = try await connect(port: port)
        try await c.send(requestLine(client))
        return c
    }

    static func requestLine(_ client: String) -> [UInt8] {
        Array("GET /socket?token=t&whalesim-client=\(client) HTTP/1.1\r\n".utf8)
    }

    func send(_ bytes: [UInt8]) async throws {
        try await channel.writeAndFlush(ByteBuffer(bytes: bytes))
    }

    var received: [UInt8] { state.withLockedValue { $0.bytes } }
    var isClosed: Bool { state.withLockedValue { $0.closed } }

    /// The first `count` bytes received, or nil if they did not all come within `timeout`.
    func waitFor(count: Int, timeout: Duration = .seconds(5)) async -> [UInt8]? {
        guard await eventually(timeout: timeout, { self.received.count >= count }) else { return nil }
        return Array(received.prefix(count))
    }

    func close() async { try? await channel.close() }
}

/// Polls `condition` every 5 ms until it holds or `timeout` passes.
func eventually(timeout: Duration = .seconds(5), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return condition()
}

/// The seconds `body` took.
func seconds(_ body: () async throws -> Void) async rethrows -> Double {
    let start = ContinuousClock.now
    try await body()
    let d = ContinuousClock.now - start
    return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
}

// XCTest's assertions take autoclosures that cannot await: evaluate first, then assert.
func expectSome<T>(_ value: T?, _ message: String = "", file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertNotNil(value, message, file: file, line: line)
}

func expectTrue(_ value: Bool, _ message: String = "", file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertTrue(value, message, file: file, line: line)
}
