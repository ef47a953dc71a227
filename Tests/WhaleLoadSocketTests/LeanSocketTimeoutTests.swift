import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing
import WhaleLoad

/// A server that accepts the connection and never answers the upgrade (a wedged server, a
/// half-open path): `connected(timeout:)` gives up on time, closes the connection and says why.
/// The time-out is a timer on an event loop (issue 21: a thousand tasks asleep on Dispatch
/// timers swelled the runner at each restart's storm), so this is what keeps it honest.
@Suite struct LeanSocketTimeoutTests {
    /// Accepts and reads, answers nothing; counts the connections the client closed.
    final class Silent: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let closed: NIOLockedValueBox<Int>
        init(closed: NIOLockedValueBox<Int>) { self.closed = closed }
        func channelInactive(context: ChannelHandlerContext) { closed.withLockedValue { $0 += 1 } }
    }

    @Test func anUpgradeThatNeverComesTimesOutAndClosesTheConnection() async throws {
        let closed = NIOLockedValueBox(0)
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { $0.pipeline.addHandler(Silent(closed: closed)) }
            .bind(host: "127.0.0.1", port: 0).get()
        defer { server.close(promise: nil) }
        let url = "ws://127.0.0.1:\(server.localAddress!.port!)/socket"
        let socket = LeanSocket(url: url) { _ in }
        let started = Date()
        let ok = await socket.connected(timeout: .milliseconds(300))
        let waited = Date().timeIntervalSince(started)
        #expect(!ok)
        #expect(waited >= 0.29 && waited < 5, "gave up after \(waited) s")
        #expect(socket.ending?.error?.contains("no upgrade within") == true, "\(String(describing: socket.ending))")
        // The client closes the connection rather than leave it to the server.
        let deadline = Date().addingTimeInterval(5)
        while closed.withLockedValue({ $0 }) == 0, Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(closed.withLockedValue { $0 } == 1)
    }

    @Test func aRefusedConnectEndsBeforeTheTimeOut() async throws {
        // An unreachable port gives no upgrade at once; a refused connect ends before the time-out.
        let socket = LeanSocket(url: "ws://127.0.0.1:1/socket") { _ in }
        let started = Date()
        #expect(await socket.connected(timeout: .seconds(30)) == false)
        #expect(Date().timeIntervalSince(started) < 10)
        #expect(socket.ending?.error?.contains("no upgrade within") != true, "\(String(describing: socket.ending))")
    }
}
