#if canImport(Glibc)
    import Foundation
    import Testing
    import WhaleLoad
    @testable import WhaleRun

    /// What the users' loops sample is buffered on each loop (no lock a sample) and merged into the
    /// run's figures every 100 ms and when the run drains the loops: nothing is lost, nothing is
    /// counted twice, and each sample stays in the second it was taken in.
    @Suite struct LoopMetricsTests {
        /// Runs `body` on `loop`'s thread and returns what it gave.
        private func onLoop<T: Sendable>(_ loop: EpollClientLoop, _ body: @escaping @Sendable () -> T) async -> T {
            await withCheckedContinuation { c in loop.execute { c.resume(returning: body()) } }
        }

        @Test func samplesOnAUsersLoopWaitInItsBufferThenAllArriveInTheirSecond() async {
            let loop = EpollClientLoop(name: "test-metrics")
            defer { loop.stop() }
            let metrics = LiveMetrics(clock: RunClock(), spillDirectory: nil, loops: [loop])
            let (secondTaken, visibleAtOnce) = await onLoop(loop) { () -> (Int, Bool) in
                let second = metrics.clock.nowMs / LiveMetrics.bucketMs
                for i in 0..<100 {
                    metrics.latency("op_ack", us: Int64(1_000 + i))
                    metrics.latency("op_remote_apply_resent", us: 2_000)
                    metrics.count("ops_acked")
                    metrics.attempt()
                }
                // The merge timer runs on this same thread: nothing can have been merged yet.
                return (
                    second,
                    metrics.totals["op_ack"] != nil || metrics.attempts > 0 || metrics.counterTotal("ops_acked") > 0
                )
            }
            #expect(!visibleAtOnce, "a sample on a users' loop went straight to the locked figures")
            await metrics.drainLoops()
            #expect(metrics.totals["op_ack"]?.count == 100)
            #expect(metrics.totals["op_remote_apply_resent"]?.count == 100)
            #expect(metrics.counterTotal("ops_acked") == 100)
            #expect(metrics.attempts == 100)
            // Charted in the second they were taken in (or the next, had the second turned meanwhile).
            let seconds = metrics.bucketsByMetric["op_ack"] ?? [:]
            #expect(seconds.values.map(\.count).reduce(0, +) == 100)
            #expect(seconds.keys.allSatisfy { $0 == secondTaken || $0 == secondTaken + 1 })
            #expect(seconds[secondTaken] != nil)
            // Drained twice: nothing counted again.
            await metrics.drainLoops()
            #expect(metrics.totals["op_ack"]?.count == 100)
            #expect(metrics.attempts == 100)
        }

        @Test func aBufferIsMergedWithinAFewTenthsOfASecondWithoutADrain() async throws {
            let loop = EpollClientLoop(name: "test-metrics")
            defer { loop.stop() }
            let metrics = LiveMetrics(clock: RunClock(), spillDirectory: nil, loops: [loop])
            await onLoop(loop) { metrics.latency("op_ack", us: 3_000) }
            let deadline = Date().addingTimeInterval(5)
            while metrics.totals["op_ack"] == nil, Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
            #expect(metrics.totals["op_ack"]?.count == 1)
        }

        @Test func afterTheDrainAndOffTheLoopsSamplesArriveAtOnce() async {
            let loop = EpollClientLoop(name: "test-metrics"), other = EpollClientLoop(name: "test-other")
            defer { loop.stop(); other.stop() }
            let metrics = LiveMetrics(clock: RunClock(), spillDirectory: nil, loops: [loop])
            // Off every loop (this test's thread), on a loop the run does not use, and under a name
            // that is not one of the latencies: at once.
            metrics.latency("op_ack", us: 1_000)
            #expect(metrics.totals["op_ack"]?.count == 1)
            let onOther = await onLoop(other) { () -> Int in
                metrics.latency("op_ack", us: 1_000)
                return metrics.totals["op_ack"]?.count ?? 0
            }
            #expect(onOther == 2)
            let unnamed = await onLoop(loop) { () -> Int in
                metrics.latency("a_metric_of_its_own", us: 1_000)
                return metrics.totals["a_metric_of_its_own"]?.count ?? 0
            }
            #expect(unnamed == 1)
            await metrics.drainLoops()
            let afterDrain = await onLoop(loop) { () -> (Int, Int) in
                metrics.latency("op_ack", us: 1_000)
                metrics.attempt()
                return (metrics.totals["op_ack"]?.count ?? 0, metrics.attempts)
            }
            #expect(afterDrain.0 == 3)
            #expect(afterDrain.1 == 1)
        }
    }
#endif
