import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing
import WhaleLoad

/// `onEnded`: what the load runner's clients hold for a connection's whole life instead of a task
/// awaiting `waitEnded()` (issue 21: a task and its stack slab per socket, a thousand made anew
/// at each server restart). It must still fire exactly once, whenever it is registered, and never
/// inside the call that ended the socket (a client may hold its own lock there).
@Suite struct LeanSocketEndedTests {
    /// Counts the calls and where they ran.
    final class Calls: Sendable {
        let count = NIOLockedValueBox(0)
        let onLoop = NIOLockedValueBox<[Bool]>([])
        func record() {
            count.withLockedValue { $0 += 1 }
            onLoop.withLockedValue { $0.append(MultiThreadedEventLoopGroup.currentEventLoop != nil) }
        }
        func waitFor(_ n: Int) async throws {
            let deadline = ContinuousClock.now + .seconds(10)
            while count.withLockedValue({ $0 }) < n, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
        }
    }

    @Test func aCallbackRegisteredBeforeTheEndRunsOnceOnAnEventLoop() async throws {
        let socket = LeanSocket(url: "ws://127.0.0.1:1/socket") { _ in }
        let calls = Calls()
        socket.onEnded { calls.record() }
        #expect(await socket.connected(timeout: .seconds(10)) == false)
        try await calls.waitFor(1)
        // Nothing fires twice, whatever else ends or closes it afterwards.
        await socket.close()
        try await Task.sleep(for: .milliseconds(100))
        #expect(calls.count.withLockedValue { $0 } == 1)
        #expect(calls.onLoop.withLockedValue { $0 } == [true])
    }

    @Test func aCallbackRegisteredAfterTheEndStillRuns() async throws {
        let socket = LeanSocket(url: "ws://127.0.0.1:1/socket") { _ in }
        #expect(await socket.connected(timeout: .seconds(10)) == false)
        await socket.waitEnded()
        let calls = Calls()
        socket.onEnded { calls.record() }
        try await calls.waitFor(1)
        #expect(calls.count.withLockedValue { $0 } == 1)
        #expect(calls.onLoop.withLockedValue { $0 } == [true])
    }

    @Test func aNotWebSocketURLEndsAtOnceAndCallsBack() async throws {
        let socket = LeanSocket(url: "http://example.invalid/") { _ in }
        let calls = Calls()
        socket.onEnded { calls.record() }
        try await calls.waitFor(1)
        #expect(calls.count.withLockedValue { $0 } == 1)
        #expect(socket.ending?.error?.contains("not a ws:// URL") == true)
    }
}
