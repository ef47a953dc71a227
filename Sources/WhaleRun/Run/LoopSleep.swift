import Dispatch
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import WhaleLoad

/// Sleeps on a NIO event loop's timer. `Task.sleep` arms a Dispatch timer: Dispatch's timer
/// thread wakes for it and pokes a pool thread, two thread wake-ups per sleep, which at 2,000
/// virtual keystrokes a second were a tenth of the runner's CPU
/// (docs/decisions/0028-swift-concurrency-on-nio-event-loops.md).
/// An event loop keeps its timers in a heap it checks anyway between reads.
/// Cancelling the task ends the sleep at once, as `Task.sleep` does.
///
/// The timer is a scheduled callback (`scheduleCallback`), not `scheduleTask`: the waker itself
/// is what the loop's timer heap holds, with no promise, future and closure made per pause
/// (at 2,000 pauses a second NIO's timer heap was about 5% of the runner's CPU).
enum LoopSleep {
    private final class Waker: NIOScheduledCallbackHandler, Sendable {
        private struct State {
            var continuation: CheckedContinuation<Void, Never>?
            var fired = false
            var timer: NIOScheduledCallback?
        }
        private let state = NIOLockedValueBox(State())

        func fire() {
            let c = state.withLockedValue { s -> CheckedContinuation<Void, Never>? in
                guard !s.fired else { return nil }
                s.fired = true
                defer { s.continuation = nil }
                return s.continuation
            }
            c?.resume()
        }

        /// Parks `c` until the timer fires; false if it already has (resume at once).
        func park(_ c: CheckedContinuation<Void, Never>) -> Bool {
            state.withLockedValue { s in
                if s.fired { return false }
                s.continuation = c
                return true
            }
        }

        func handleScheduledCallback(eventLoop: some EventLoop) { fire() }
        /// A loop that shuts down with the pause pending cancels it: the sleeper wakes. NIO calls
        /// this holding the loop's task lock, and resuming the sleeper there would enqueue its job
        /// on a loop (NIO runs Swift's tasks), maybe this one, under that same lock: so on Dispatch.
        func didCancelScheduledCallback(eventLoop: some EventLoop) { DispatchQueue.global().async { self.fire() } }

        func arm(_ timer: NIOScheduledCallback) { state.withLockedValue { $0.timer = timer } }
        func cancel() {
            let timer = state.withLockedValue { $0.timer }
            timer?.cancel()
            fire()
        }
    }

    /// Sleeps `ms`; with a `gridMs` over 0, until the first whole multiple of `gridMs` of the
    /// monotonic clock at or after `ms` from now. Returns the microseconds the grid added.
    ///
    /// Why a grid (`live.timer-grid`): a thousand virtual users each sleeping from a moment of
    /// its own give the loop a thousand distinct deadlines, so it woke, and set its timer again,
    /// for each of them: about 2,700 wake-ups a second at 2,000 ops/s with one loop. On a grid
    /// the users due in the same step wake it once. The caller adds the returned shift to its
    /// planned time, so the step is not counted as the runner's lag.
    @discardableResult
    static func sleep(
        ms: Int, gridMs: Int = 0, on loop: EpollClientLoop? = nil,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async -> Int64 {
        guard ms > 0, !Task.isCancelled else { return 0 }
        var deadline = NIODeadline.now() + .milliseconds(Int64(ms))
        var shiftUs: Int64 = 0
        if gridMs > 0 {
            let step = UInt64(gridMs) * 1_000_000, ns = deadline.uptimeNanoseconds
            let aligned = (ns + step - 1) / step * step
            shiftUs = Int64((aligned - ns) / 1_000)
            deadline = .uptimeNanoseconds(aligned)
        }
        await sleep(until: deadline, loop: loop, group: group)
        return shiftUs
    }

    private static func sleep(until deadline: NIODeadline, loop: EpollClientLoop?, group: any EventLoopGroup) async {
        let waker = Waker()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                guard waker.park(c) else { c.resume(); return }
                if let loop {
                    // Its timer heap, on its thread: no NIO loop in the way. (Cancelling only
                    // wakes the sleeper early; the heap's entry then fires into a waker already fired.)
                    loop.schedule(atUptimeNs: deadline.uptimeNanoseconds) { waker.fire() }
                    return
                }
                // The loop this thread runs, when it is one: no cross-thread wake-up to arm it.
                do {
                    waker.arm(try group.any().scheduleCallback(at: deadline, handler: waker))
                } catch {
                    waker.fire()  // the loop is shutting down: nothing left to wait for
                }
            }
        } onCancel: {
            waker.cancel()
        }
    }
}
