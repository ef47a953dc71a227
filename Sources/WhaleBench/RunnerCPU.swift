import Foundation
import NIOConcurrencyHelpers
import WhaleRun

/// Samples the process's CPU time and a frame count every `periodMs` while a load runs, so the
/// bench can read the runner's cost over any window of it (the steady window, not the ramp-up or
/// the checkers at the end).
package final class RunnerCPUSampler: Sendable {
    package struct Sample: Sendable {
        package var ms: Int
        package var cpu: Double
        package var frames: Int
    }
    /// What one window cost: CPU seconds, frames handled and ops, over `seconds` of wall time.
    package struct Window: Sendable {
        package var seconds: Double
        package var cpuSeconds: Double
        package var frames: Int
        package var ops: Int
        /// The share of one core the runner used.
        package var cores: Double { cpuSeconds / max(seconds, 1e-9) }
        package var cpuSecondsPer1000Ops: Double { ops > 0 ? cpuSeconds / Double(ops) * 1000 : .nan }
        package var framesPerCPUSecond: Double { cpuSeconds > 0 ? Double(frames) / cpuSeconds : .nan }
        package var opsPerSecond: Double { Double(ops) / max(seconds, 1e-9) }
    }

    private let samples = NIOLockedValueBox<[Sample]>([])
    private let task: NIOLockedValueBox<Task<Void, Never>?> = NIOLockedValueBox(nil)

    /// `nowMs`: the clock the windows are given in; `frames`: frames handled so far.
    package init(periodMs: Int = 250, nowMs: @escaping @Sendable () -> Int, frames: @escaping @Sendable () -> Int) {
        let samples = self.samples
        task.withLockedValue {
            $0 = Task.detached(priority: .high) {
                while !Task.isCancelled {
                    samples.withLockedValue {
                        $0.append(Sample(ms: nowMs(), cpu: processCPUSeconds(), frames: frames()))
                    }
                    try? await Task.sleep(for: .milliseconds(periodMs))
                }
            }
        }
    }

    package func stop() { task.withLockedValue { $0?.cancel() } }

    /// The samples nearest inside [`fromMs`, `toMs`], and the CPU and frames between them; `ops`
    /// were counted over the whole of [`fromMs`, `toMs`], so they are scaled to the samples' span.
    package func window(fromMs: Int, toMs: Int, ops: Int) -> Window? {
        let all = samples.withLockedValue { $0 }
        guard toMs > fromMs, let first = all.first(where: { $0.ms >= fromMs }),
            let last = all.last(where: { $0.ms <= toMs }), last.ms > first.ms
        else { return nil }
        let span = Double(last.ms - first.ms)
        return Window(
            seconds: span / 1000, cpuSeconds: last.cpu - first.cpu, frames: last.frames - first.frames,
            ops: Int((Double(ops) * span / Double(toMs - fromMs)).rounded()))
    }
}

/// User plus system CPU time of the whole process (every thread), from getrusage.
package func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) * 1e-6
        + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) * 1e-6
}
