import Foundation

/// Timings of several runs of one benchmark: the median is what the reports quote.
///
/// Each run records wall-clock time and this thread's CPU time. On a machine shared with other
/// jobs the wall clock also counts time the scheduler gave to others, so targets are judged on
/// CPU time (the work this code did) and both are printed.
package struct BenchTiming {
    package var seconds: [Double]
    package var wallSeconds: [Double]

    package var median: Double { seconds.sorted()[seconds.count / 2] }
    package var min: Double { seconds.min() ?? 0 }
    package var max: Double { seconds.max() ?? 0 }
    package var wallMedian: Double { wallSeconds.sorted()[wallSeconds.count / 2] }

    /// Runs `body` `runs` times; each run returns a checksum, which is kept so the optimizer
    /// cannot drop the work, and which must be the same every run.
    package static func measure(runs: Int, _ body: () throws -> Int) rethrows -> (timing: BenchTiming, checksum: Int) {
        var seconds: [Double] = [], wall: [Double] = []
        var checksum = 0
        for run in 0..<Swift.max(runs, 1) {
            let start = ContinuousClock.now
            let cpuStart = threadCPUSeconds()
            let sum = try body()
            let cpu = threadCPUSeconds() - cpuStart
            let elapsed = ContinuousClock.now - start
            seconds.append(cpu)
            wall.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
            if run == 0 { checksum = sum } else { precondition(sum == checksum, "checksum changed between runs") }
        }
        return (BenchTiming(seconds: seconds, wallSeconds: wall), checksum)
    }

    /// `median 12.3 ms (min 11.9, max 13.0)`.
    package var milliseconds: String {
        "CPU median \(Self.format(median * 1000)) ms (min \(Self.format(min * 1000)), max \(Self.format(max * 1000))); wall median \(Self.format(wallMedian * 1000)) ms"
    }

    /// Operations per second for `count` operations per run: `CPU median 3.41 M/s (min 3.30, max 3.52); wall …`.
    package func rate(_ count: Int) -> String {
        let perSecond = { (s: Double) in Double(count) / s }
        let (scale, unit) = perSecond(median) >= 1e6 ? (1e6, "M/s") : (1e3, "k/s")
        let f = { (s: Double) in Self.format(perSecond(s) / scale) }
        return "CPU median \(f(median)) \(unit) (min \(f(max)), max \(f(min))); wall median \(f(wallMedian)) \(unit)"
    }

    package static func format(_ value: Double) -> String {
        value >= 100 ? String(Int(value.rounded())) : String(format: value >= 10 ? "%.1f" : "%.3g", value)
    }
}

/// CPU time this thread has used, in seconds.
package func threadCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
}

/// Resident set size of this process in bytes, from /proc/self/status (VmRSS), or nil off Linux.
package func residentBytes() -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        let kilobytes = line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
        return kilobytes.map { $0 * 1024 }
    }
    return nil
}

/// True in a release build; benchmarks print a warning otherwise.
package var isReleaseBuild: Bool {
    #if DEBUG
        false
    #else
        true
    #endif
}
