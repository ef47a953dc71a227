import Foundation
import NIOConcurrencyHelpers
import NIOPosix
import Testing
@testable import WhaleLoad

/// A caller descheduled between starting the connect and registering its callback (a saturated
/// runner at a restart's storm) must still have a socket that sends. The upgrade then finished
/// before the callback that recorded the channel was registered: the socket said it was open,
/// and `send` dropped every frame silently, so a client's join never left and the client sat
/// unjoined for 9 s after the server came back (2 of 5 demos beside two busy loops).
@Suite(.serialized) struct LeanSocketLateCallerTests {
    @Test func aSocketWhoseCallerWasLateStillSendsWhatItIsGiven() async throws {
        let server = try await ScriptServer.start(script: [])
        defer { server.stop() }
        let url = server.url + "late"
        // The socket's own loop, so the test can keep it busy.
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        // Holds the caller 300 ms after the connect starts (the upgrade is done long before),
        // then keeps the loop busy 500 ms: whatever the connect's callback does waits behind
        // that, while this thread goes on to `connected()` and `send`, as a runner's task does.
        LeanSocket.afterConnectStarted = { u in
            guard u == url else { return }
            usleep(300_000)
            group.next().execute { usleep(500_000) }
        }
        defer { LeanSocket.afterConnectStarted = nil }
        let socket = LeanSocket(url: url, group: group) { (_: [UInt8]) in }
        #expect(await socket.connected(timeout: .seconds(5)))
        socket.send("the join")
        try await LeanSocketFrameTests.waitUntil {
            server.clientFrames().contains { $0.payload == Array("the join".utf8) }
        }
        let texts = server.clientFrames().filter { $0.opcode == 1 }.map { String(decoding: $0.payload, as: UTF8.self) }
        #expect(texts == ["the join"])
        await socket.close()
        #expect(socket.ending != nil, "closed by its owner, yet it says it is open")
        try await group.shutdownGracefully()
    }
}
