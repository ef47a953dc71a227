import Foundation
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
        await task.value
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

    @Test func manySleepsAtOnceAllEnd() async {
        await withTaskGroup(of: Void.self) { group in
            for i in 0..<2_000 { group.addTask { await LoopSleep.sleep(ms: i % 50) } }
        }
    }
}
