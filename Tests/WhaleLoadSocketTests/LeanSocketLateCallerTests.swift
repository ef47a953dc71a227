import Foundation
import NIOConcurrencyHelpers
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
        // Holds the caller 300 ms after the connect starts: the upgrade is done long before.
        LeanSocket.afterConnectStarted = { u in if u == url { usleep(300_000) } }
        defer { LeanSocket.afterConnectStarted = nil }
        let socket = LeanSocket(url: url) { _ in }
        #expect(await socket.connected(timeout: .seconds(5)))
        socket.send("the join")
        try await LeanSocketFrameTests.waitUntil { server.clientFrames().contains { $0.payload == Array("the join".utf8) } }
        let texts = server.clientFrames().filter { $0.opcode == 1 }.map { String(decoding: $0.payload, as: UTF8.self) }
        #expect(texts == ["the join"])
        await socket.close()
        #expect(socket.ending != nil, "closed by its owner, yet it says it is open")
    }
}
