import Foundation
import NIOPosix
import Testing
@testable import WhaleRun

/// The virtual users' sleep on an event loop's timer: it lasts at least what was asked, and a
/// cancelled task wakes at once (as from `Task.sleep`), so a run's end is not held up by a think time.
@Suite struct LoopSleepTests {
    @Test func sleepsAtLeastTheTimeAsked() async {
        let start = ContinuousClock.now
        await LoopSleep.sleep(ms: 30)
        #expect(ContinuousClock.now - start >= .milliseconds(30))
    }

    @Test func aCancelledSleepEndsAtOnce() async {
        let start = ContinuousClock.now
        let task = Task { await LoopSleep.sleep(ms: 60_000) }
        try? await Task.sleep(for: .milliseconds(20))
        task.cancel()
        _ = await task.value
        #expect(ContinuousClock.now - start < .seconds(10))
    }

    @Test func aSleepInAnAlreadyCancelledTaskReturnsAtOnce() async {
        let start = ContinuousClock.now
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            await LoopSleep.sleep(ms: 60_000)
        }
        await task.value
        #expect(ContinuousClock.now - start < .seconds(10))
    }

    /// A loop that shuts down with pauses pending wakes their sleepers instead of leaving them
    /// parked for good.
    @Test func aLoopShuttingDownWakesItsSleepers() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let start = ContinuousClock.now
        let sleepers = (0..<10).map { _ in Task { await LoopSleep.sleep(ms: 60_000, group: group) } }
        try await Task.sleep(for: .milliseconds(50))
        try await group.shutdownGracefully()
        for sleeper in sleepers { _ = await sleeper.value }
        #expect(ContinuousClock.now - start < .seconds(10))
    }

    /// Cancelling many pending pauses at once, from the loops themselves and from elsewhere,
    /// ends them all (the cancel path runs under the loop's task lock: nothing may deadlock).
    @Test func manyCancelledSleepsAllEnd() async {
        let start = ContinuousClock.now
        let tasks = (0..<500).map { i in Task { await LoopSleep.sleep(ms: 30_000 + i) } }
        try? await Task.sleep(for: .milliseconds(50))
        for task in tasks { task.cancel() }
        for task in tasks { _ = await task.value }
        #expect(ContinuousClock.now - start < .seconds(10))
    }

    @Test func manySleepsAtOnceAllEnd() async {
        await withTaskGroup(of: Void.self) { group in
            for i in 0..<2_000 { group.addTask { await LoopSleep.sleep(ms: i % 50) } }
        }
    }
}
