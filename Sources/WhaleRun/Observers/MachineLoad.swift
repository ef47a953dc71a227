import Foundation
import NIOConcurrencyHelpers
import WhaleReports

/// How busy the machine was, second by second, and how much of it went to processes that are
/// not this run's: the runner and every process it started (the embedded server, whalesim lazyfs,
/// a `--restart-command`'s server while it is a descendant).
///
/// `runner_lag` sees a starved generator; it cannot see a starved server. When another program
/// takes the CPU, the server's acks come late while the runner's own timers may still be on
/// time, and a latency threshold breached in those seconds measures the machine, not the server.
/// A second is *contended* when other processes used at least ``foreignBoundCores`` and the
/// machine had no spare CPU (``busyBound`` of all cores busy); the judge leaves contended seconds
/// out of a breached latency threshold (``LiveJudge``), as it does saturated ones.
///
/// Read from Linux's `/proc/stat`, `/proc/PID/stat` and `/proc/pressure/cpu` (PSI, recorded
/// when the kernel has it); on a system without `/proc` nothing is sampled and nothing is
/// contended.
public final class MachineLoad: Sendable {
    /// One second's figures.
    public struct Second: Sendable, Equatable {
        /// Share of all cores busy (0...1).
        public var busy: Double
        /// Cores' worth of CPU used by processes that are not this run's.
        public var foreign: Double
        /// Share of the second in which some runnable task waited for a CPU (PSI "some"), if known.
        public var pressure: Double?
    }

    /// Other processes' CPU, in cores, from which a busy second counts as contended, unless the
    /// scenario says otherwise (`live.foreign-cpu-bound`).
    public static let defaultForeignBoundCores = 0.25
    /// The share of all cores busy from which the machine had no CPU to spare.
    public static let busyBound = 0.85

    public let cores: Int
    /// This run's bound on other processes' CPU (cores); nil: no second is contended.
    public let foreignBound: Double?
    private let seconds = NIOLockedValueBox([Int: Second]())

    public init(
        cores: Int = ProcessInfo.processInfo.activeProcessorCount, foreignBound: Double? = defaultForeignBoundCores
    ) {
        self.cores = max(1, cores)
        self.foreignBound = foreignBound
    }

    func record(bucket: Int, _ second: Second) {
        seconds.withLockedValue { $0[bucket] = second }
    }

    /// Every sampled second by bucket.
    public var bySecond: [Int: Second] { seconds.withLockedValue { $0 } }

    /// Whether `s` was contended.
    public func isContended(_ s: Second) -> Bool {
        guard let foreignBound else { return false }
        return s.foreign >= foreignBound && s.busy >= Self.busyBound
    }

    /// What a contended second is, in words.
    public var contentionRule: String {
        guard let foreignBound else { return "contention not judged (foreign-cpu-bound: off)" }
        return
            "other processes used ≥ \(foreignBound) of a core while ≥ \(Int(Self.busyBound * 100))% of all cores were busy"
    }

    /// The contended seconds as report windows (adjacent seconds merged), kind `contended`.
    public func contendedWindows(bucketMs: Int = LiveMetrics.bucketMs) -> [FaultWindow] {
        var out: [FaultWindow] = []
        for (b, s) in bySecond.sorted(by: { $0.key < $1.key }) where isContended(s) {
            let start = b * bucketMs, end = start + bucketMs
            if let last = out.last, last.end == start {
                out[out.count - 1].end = end
            } else {
                out.append(
                    FaultWindow(
                        kind: "contended", label: "machine busy with other processes (\(contentionRule))", start: start,
                        end: end))
            }
        }
        return out
    }

    /// The per-second figures as `run.json`'s `series.machine`, one value per bucket (nil: not sampled).
    public func series(buckets n: Int) -> MachineSeries {
        let s = bySecond
        return MachineSeries(
            cores: cores, foreignBound: foreignBound, busyBound: Self.busyBound,
            busy: (0..<n).map { s[$0]?.busy }, foreign: (0..<n).map { s[$0]?.foreign },
            pressure: (0..<n).map { s[$0]?.pressure })
    }
}

/// Samples ``MachineLoad`` at every second boundary of the run clock, so a sample covers exactly
/// the bucket its latencies fall in, on a thread of its own (not an event loop: it must run, late
/// or not, when the loops are busy; rates are taken over the time that really passed). `stop()`
/// takes a last sample for the partial second, and may be called more than once.
final class MachineLoadProbe: Sendable {
    private let stopped = NIOLockedValueBox(false)
    private let done = DispatchSemaphore(value: 0)
    private let finished = NIOLockedValueBox(false)

    init(load: MachineLoad, clock: RunClock, bucketMs: Int = LiveMetrics.bucketMs) {
        let stopped = stopped, done = done
        let thread = Thread {
            defer { done.signal() }
            var last = ProcSample.take()
            var lastMs = clock.nowMs
            while true {
                // Until the next bucket boundary, in small steps so stop() returns quickly.
                let boundary = (lastMs / bucketMs + 1) * bucketMs
                var stopping = false
                while clock.nowMs < boundary {
                    if stopped.withLockedValue({ $0 }) { stopping = true; break }
                    usleep(10_000)
                }
                let now = ProcSample.take(), nowMs = clock.nowMs
                if let a = last, let b = now, let second = ProcSample.figures(from: a, to: b, cores: load.cores) {
                    load.record(bucket: lastMs / bucketMs, second)
                }
                if stopping { return }
                last = now
                lastMs = nowMs
            }
        }
        thread.name = "whalesim machine load"
        thread.start()
    }

    func stop() {
        stopped.withLockedValue { $0 = true }
        let first = finished.withLockedValue { f -> Bool in
            defer { f = true }; return !f
        }
        if first { done.wait() }
    }
}

/// One reading of the counters ``MachineLoad`` needs, and the parsers of the `/proc` files.
struct ProcSample: Equatable {
    /// Jiffies since boot, all CPUs: busy (user, nice, system, irq, softirq, steal) and all.
    var busy: UInt64
    var total: UInt64
    /// CPU ticks of this process and its live descendants, each with its reaped children's.
    var ours: UInt64
    /// PSI "some" stall time, µs since boot.
    var pressureUs: UInt64?
    /// Wall time of the reading, µs (a monotonic clock).
    var atUs: UInt64

    static func take() -> ProcSample? {
        guard let stat = try? String(contentsOfFile: "/proc/stat", encoding: .utf8), let cpu = parseCPU(stat) else {
            return nil
        }
        let pressure = (try? String(contentsOfFile: "/proc/pressure/cpu", encoding: .utf8)).flatMap(parsePressure)
        return ProcSample(
            busy: cpu.busy, total: cpu.total, ours: ourTicks(), pressureUs: pressure,
            atUs: DispatchTime.now().uptimeNanoseconds / 1000)
    }

    /// The figures of the time between two readings; nil when no time passed.
    static func figures(from a: ProcSample, to b: ProcSample, cores: Int) -> MachineLoad.Second? {
        guard b.total > a.total, b.atUs > a.atUs else { return nil }
        let ticksPerSecond = Double(max(1, sysconf(Int32(_SC_CLK_TCK))))
        let elapsed = Double(b.atUs - a.atUs) / 1e6
        let busyTicks = Double(b.busy &- a.busy), totalTicks = Double(b.total - a.total)
        let ours = b.ours >= a.ours ? Double(b.ours - a.ours) : 0
        let foreign = max(0, (busyTicks - ours) / ticksPerSecond / elapsed)
        var pressure: Double?
        if let p0 = a.pressureUs, let p1 = b.pressureUs, p1 >= p0 { pressure = min(1, Double(p1 - p0) / 1e6 / elapsed) }
        return MachineLoad.Second(busy: min(1, busyTicks / totalTicks), foreign: foreign, pressure: pressure)
    }

    /// The first line of `/proc/stat`: `cpu  user nice system idle iowait irq softirq steal guest guest_nice`.
    static func parseCPU(_ stat: String) -> (busy: UInt64, total: UInt64)? {
        guard let line = stat.split(separator: "\n", maxSplits: 1).first, line.hasPrefix("cpu ") else { return nil }
        let v = line.split(separator: " ").dropFirst().compactMap { UInt64($0) }
        guard v.count >= 4 else { return nil }
        // guest and guest_nice are already inside user and nice.
        let counted = Array(v.prefix(8))
        let total = counted.reduce(0, +)
        let idle = counted[3] + (counted.count > 4 ? counted[4] : 0)
        return (total - idle, total)
    }

    /// `/proc/pressure/cpu`'s `some ... total=N` (µs).
    static func parsePressure(_ text: String) -> UInt64? {
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("some ") }),
            let field = line.split(separator: " ").first(where: { $0.hasPrefix("total=") })
        else { return nil }
        return UInt64(field.dropFirst("total=".count))
    }

    /// A `/proc/PID/stat` line: its parent and its CPU ticks (utime + stime + cutime + cstime).
    /// The command name may hold spaces and parentheses, so fields are counted after the last `)`.
    static func parseProcessStat(_ line: String) -> (ppid: Int32, ticks: UInt64)? {
        guard let close = line.lastIndex(of: ")") else { return nil }
        let fields = line[line.index(after: close)...].split(separator: " ")
        // After the name: state(0) ppid(1) ... utime(11) stime(12) cutime(13) cstime(14).
        guard fields.count > 14, let ppid = Int32(fields[1]) else { return nil }
        let ticks = [11, 12, 13, 14].compactMap { UInt64(fields[$0]) }.reduce(0, +)
        return (ppid, ticks)
    }

    /// This process and its live descendants: their ticks, each with its reaped children's (so a
    /// child's time moves into its parent's count when it is reaped, and nothing is lost or doubled).
    static func ourTicks() -> UInt64 {
        let me = getpid()
        var parent: [Int32: Int32] = [:]
        var ticks: [Int32: UInt64] = [:]
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return 0 }
        for name in entries {
            guard let pid = Int32(name), let line = try? String(contentsOfFile: "/proc/\(name)/stat", encoding: .utf8),
                let p = parseProcessStat(line)
            else { continue }
            parent[pid] = p.ppid
            ticks[pid] = p.ticks
        }
        var total: UInt64 = 0
        for (pid, t) in ticks {
            var walk = pid, hops = 0
            while walk != me, walk > 1, hops < 64, let up = parent[walk] { walk = up; hops += 1 }
            if walk == me { total += t }
        }
        return total
    }
}
