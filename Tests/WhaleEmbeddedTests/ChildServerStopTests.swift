import Foundation
import Testing
@testable import WhaleEmbedded

/// Stopping a server child: from a task it waits off the event loops, and a child that does not
/// end on SIGTERM within the grace period is killed, so a server stuck in its shutdown never
/// hangs the run.
@Suite struct ChildServerStopTests {
    /// A stand-in child that prints the line `ChildServer` waits for, then lives on; with
    /// `ignoreTerm` it shrugs off SIGTERM as a server stuck in its shutdown would.
    func child(ignoreTerm: Bool) throws -> ChildServer {
        let script =
            (ignoreTerm ? "trap '' TERM; " : "") + "echo 'http: http://127.0.0.1:1'; while true; do sleep 0.1; done"
        return try ChildServer(["-c", script], executable: "/bin/sh", timeout: .seconds(10))
    }

    @Test func aChildThatEndsOnSIGTERMStopsAtOnce() async throws {
        let server = try child(ignoreTerm: false)
        let start = ContinuousClock.now
        await server.stopped(graceSeconds: 20)
        #expect(!server.process.isRunning)
        #expect(ContinuousClock.now - start < .seconds(10))
    }

    @Test func aChildThatIgnoresSIGTERMIsKilledAfterTheGrace() async throws {
        let server = try child(ignoreTerm: true)
        let start = ContinuousClock.now
        await server.stopped(graceSeconds: 1)
        let took = ContinuousClock.now - start
        #expect(!server.process.isRunning)
        #expect(server.process.terminationReason == .uncaughtSignal)
        #expect(took >= .seconds(1) && took < .seconds(10), "\(took)")
    }

    @Test func killedWaitsForTheChild() async throws {
        let server = try child(ignoreTerm: true)
        await server.killed()
        #expect(!server.process.isRunning)
        #expect(server.process.terminationStatus == SIGKILL)
    }
}
