import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// Measures how late the load generator's event loops run against plan: every `periodMs` a task
/// is scheduled on each loop of the group the sockets use, and how much later than planned it
/// ran goes into `runner_lag` (with the virtual users' own timer lateness). A loop busy with
/// frames, or a process starved of CPU, shows here before it shows as a server's latency.
final class RunnerLagProbe: Sendable {
    private let tasks: [RepeatedTask]

    init(metrics: LiveMetrics, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, periodMs: Int64 = 20)
    {
        var tasks: [RepeatedTask] = []
        for loop in group.makeIterator() {
            let clock = metrics.clock
            let planned = NIOLockedValueBox(clock.nowUs + periodMs * 1000)
            tasks.append(
                loop.scheduleRepeatedTask(initialDelay: .milliseconds(periodMs), delay: .milliseconds(periodMs)) { _ in
                    let now = clock.nowUs
                    // A fixed delay after each run: the next run is planned from this one.
                    let late = planned.withLockedValue { p -> Int64 in
                        defer { p = now + periodMs * 1000 }; return now - p
                    }
                    metrics.lag(us: late)
                })
        }
        self.tasks = tasks
    }

    func stop() { for t in tasks { t.cancel() } }
}

/// Test hook (``LiveRunOptions/starveRunnerMs``): blocks every event loop of the group for
/// `blockMs` out of every 250 ms, as a CPU-starved generator would be, so a live test can show
/// the lag probe, the saturated windows and the `unknown` latency thresholds end to end.
final class RunnerStarver: Sendable {
    private let tasks: [RepeatedTask]

    init(blockMs: Int, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) {
        tasks = group.makeIterator().map { loop in
            loop.scheduleRepeatedTask(initialDelay: .milliseconds(250), delay: .milliseconds(250)) { _ in
                usleep(UInt32(blockMs * 1000))
            }
        }
    }

    func stop() { for t in tasks { t.cancel() } }
}
