import Foundation
import Testing
import WhaleReports
@testable import WhaleRun

/// The machine-load signal: the `/proc` parsers on fixed text, the arithmetic of a second, the
/// contended windows, and on this machine that a process this run started counts as ours while
/// one that left the family (a double fork) counts as another program's.
@Suite struct MachineLoadTests {
    @Test func theProcFilesAreReadAsTheKernelWritesThem() throws {
        let stat = "cpu  4705 356 584 3699 23 0 23 11 7 0\ncpu0 2000 100 300 1800 10 0 10 5 3 0\nintr 1234\n"
        let cpu = try #require(ProcSample.parseCPU(stat))
        // busy: user nice system irq softirq steal (guest is inside user); idle and iowait are not.
        #expect(cpu.busy == 4705 + 356 + 584 + 0 + 23 + 11)
        #expect(cpu.total == 4705 + 356 + 584 + 3699 + 23 + 0 + 23 + 11)
        #expect(ProcSample.parseCPU("intr 1\n") == nil)
        #expect(ProcSample.parseCPU("cpu 1 2\n") == nil, "too few fields")

        let psi =
            "some avg10=10.25 avg60=4.01 avg300=1.10 total=3918699\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"
        #expect(ProcSample.parsePressure(psi) == 3_918_699)
        #expect(ProcSample.parsePressure("full total=5\n") == nil)

        // A command name with spaces and parentheses: fields are counted after the last ')'.
        let line = "4242 (my (odd) name) S 17 4242 4242 0 -1 4194560 100 0 0 0 120 30 7 3 20 0 1 0 100 1000 10"
        let p = try #require(ProcSample.parseProcessStat(line))
        #expect(p.ppid == 17)
        #expect(p.ticks == 120 + 30 + 7 + 3)
        #expect(ProcSample.parseProcessStat("4242 (cut") == nil)
        #expect(ProcSample.parseProcessStat("4242 (x) S 1 2") == nil, "too few fields")
    }

    @Test func aSecondsFiguresAndItsContention() throws {
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        // One second on 2 cores: 2 s of CPU in all, 1.8 s busy, 0.6 s of it ours → 1.2 cores foreign.
        let a = ProcSample(busy: 1000, total: 5000, ours: 100, pressureUs: 1_000_000, atUs: 10_000_000)
        let b = ProcSample(
            busy: 1000 + UInt64(1.8 * ticks), total: 5000 + UInt64(2 * ticks), ours: 100 + UInt64(0.6 * ticks),
            pressureUs: 1_400_000, atUs: 11_000_000)
        let s = try #require(ProcSample.figures(from: a, to: b, cores: 2))
        #expect(abs(s.busy - 0.9) < 0.01)
        #expect(abs(s.foreign - 1.2) < 0.02)
        #expect(abs((s.pressure ?? 0) - 0.4) < 0.001)
        #expect(MachineLoad(cores: 2).isContended(s))
        // Ours more than the machine's busy time (rounding between readings): never negative.
        var c = b
        c.ours = 100 + UInt64(3 * ticks)
        #expect(ProcSample.figures(from: a, to: c, cores: 2)?.foreign == 0)
        #expect(ProcSample.figures(from: a, to: a, cores: 2) == nil, "no time passed")
        // Busy but all ours, or others busy on an idle machine: not contended.
        #expect(!MachineLoad(cores: 2).isContended(.init(busy: 1.0, foreign: 0.1, pressure: 0.9)))
        #expect(!MachineLoad(cores: 2).isContended(.init(busy: 0.5, foreign: 1.0, pressure: 0.1)))

        // A scenario may turn the rule off (a dedicated machine): nothing is contended then.
        #expect(!MachineLoad(cores: 2, foreignBound: nil).isContended(s))
        #expect(
            MachineLoad(cores: 2, foreignBound: 1.5).isContended(s) == false,
            "1.2 cores of others, under a bound of 1.5")
        let load = MachineLoad(cores: 2)
        for (b, busy) in [(0, 0.5), (1, 0.95), (2, 0.99), (3, 0.4), (4, 0.9)] {
            load.record(bucket: b, .init(busy: busy, foreign: busy > 0.8 ? 1.0 : 0.0, pressure: nil))
        }
        #expect(load.contendedWindows().map { [$0.start, $0.end] } == [[1000, 3000], [4000, 5000]])
        #expect(load.contendedWindows().allSatisfy { $0.kind == "contended" })
        let series = load.series(buckets: 6)
        #expect(series.busy.count == 6 && series.busy[5] == nil && series.busy[1] == 0.95)
        #expect(series.cores == 2)
    }

    /// CPU burned by a child of this process is ours; CPU burned by a process that left the family
    /// (started by a shell that exited, so adopted by init) is another program's.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/stat")))
    func ourChildrenAreOursAndADetachedProcessIsNot() throws {
        func burn(_ script: String) throws -> (ours: Double, foreign: Double) {
            let before = try #require(ProcSample.take())
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/bin/sh")
            p.arguments = ["-c", script]
            try p.run()
            p.waitUntilExit()
            let after = try #require(ProcSample.take())
            let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
            let figures = try #require(
                ProcSample.figures(from: before, to: after, cores: ProcessInfo.processInfo.activeProcessorCount))
            return (Double(after.ours - before.ours) / ticks, figures.foreign)
        }
        // About a second of CPU in a child of ours (a fixed amount of work, however busy the machine).
        let child = try burn("i=0; while [ $i -lt 1000000 ]; do i=$((i+1)); done")
        #expect(child.ours >= 0.5, "a child's CPU is ours: \(child)")
        // The same loop detached: a shell starts it in the background and exits at once, so it
        // is adopted by init. (Spawned and reaped by pid: Foundation's Process would wait for the
        // loop, which keeps its exit pipe open.)
        let pidFile = NSTemporaryDirectory() + "whalesim-detached-\(getpid()).pid"
        defer {
            if let text = try? String(contentsOfFile: pidFile, encoding: .utf8),
                let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
            {
                kill(pid, SIGKILL)
            }
            try? FileManager.default.removeItem(atPath: pidFile)
        }
        let script =
            "sh -c 'echo $$ > \(pidFile); end=$(( $(date +%s%N) + 1500000000 )); while [ $(date +%s%N) -lt $end ]; do :; done' </dev/null >/dev/null 2>&1 & sleep 0.1; exit 0;"
        #expect(LiveRun.runRestartCommand(script, phase: "") == nil)
        let start = try #require(ProcSample.take())
        Thread.sleep(forTimeInterval: 1.0)
        let end = try #require(ProcSample.take())
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        let figures = try #require(
            ProcSample.figures(from: start, to: end, cores: ProcessInfo.processInfo.activeProcessorCount))
        #expect(Double(end.ours - start.ours) / ticks < 0.3, "the detached loop is not ours")
        #expect(figures.foreign >= 0.3, "the detached loop is another program's: \(figures)")
    }
}
