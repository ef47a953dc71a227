import Foundation
#if canImport(Glibc)
    import Glibc
#endif
import WhaleProtocol
import WhaleReports
import WhaleSim

extension LiveRun {
    /// One scheduled fault: when it starts (ms from the start of the load) and what it is.
    struct ScheduledFault {
        enum What {
            case nemesis(NemesisSpec)
            case network(NetworkFaultSpec)
        }
        var start: Int
        var duration: Int
        var what: What
    }

    /// Every fault window of the run, from the scenario's nemeses (ticks are ms live; `every`
    /// draws exponential gaps from the seed) and its live network faults.
    func schedule() -> [ScheduledFault] {
        var rng = SimRandom(seed: options.seed).derive(0xFA17)
        var out: [ScheduledFault] = []
        for n in scenario.nemeses {
            var starts = n.at
            if let every = n.every {
                var t = 0
                while true {
                    t += max(1, Int(-log(max(1e-9, 1 - rng.unit())) * Double(every)))
                    if t >= spec.durationMs { break }
                    starts.append(t)
                }
            }
            out += starts.filter { $0 < spec.durationMs }.map {
                ScheduledFault(start: $0, duration: n.duration, what: .nemesis(n))
            }
        }
        for f in spec.networkFaults {
            out += f.at.filter { $0 < spec.durationMs }.map {
                ScheduledFault(start: $0, duration: f.durationMs, what: .network(f))
            }
        }
        return out.sorted { $0.start < $1.start }
    }

    /// Carries out the schedule; each window ends on its own task.
    func runFaultWindows(context: RunContext, loadStart: Int) async {
        var rng = SimRandom(seed: options.seed).derive(0xFA18)
        for fault in schedule() {
            let wait = loadStart + fault.start - clock.nowMs
            if wait > 0 { try? await Task.sleep(for: .milliseconds(wait)) }
            if Task.isCancelled || context.isLoadOver { return }
            await begin(fault, rng: &rng)
        }
    }

    private func begin(_ fault: ScheduledFault, rng: inout SimRandom) async {
        let now = clock.nowMs
        switch fault.what {
        case .nemesis(let n):
            switch n.kind {
            case .powerLoss:
                await losePower(fault)
            case .serverRestart:
                guard let server = embeddedServer else {
                    if let command = options.restartCommand {
                        await restartTeamServer(fault, command: command, dropControl: nil)
                    } else {
                        note(
                            "server-restart at \(fault.start) ms skipped: the server is not embedded (give --restart-command)"
                        )
                    }
                    return
                }
                context?.recorder.record(.serverCrash)
                let window = addWindow(
                    kind: "server-restart", label: "server killed and restarted", start: now, duration: fault.duration)
                context?.metrics.outage(true)
                await server.kill()
                Task {
                    try? await Task.sleep(for: .milliseconds(fault.duration))
                    do { try await server.restart(); self.note("restarted on \(server.baseURL)") } catch {
                        self.note("the embedded server did not restart: \(error)")
                    }
                    self.context?.recorder.record(.serverRestart)
                    self.context?.metrics.outage(false)
                    self.endWindow(window)
                    self.measureConvergence(after: "the server restart")
                }
            case .disconnect:
                let joined = allUsers.compactMap(\.noteSession).filter(\.isJoined)
                guard !joined.isEmpty else { return }
                let victim = joined[rng.int(in: 0...(joined.count - 1))]
                _ = addWindow(
                    kind: "disconnect", label: "\(victim.clientId.rawValue) disconnected", start: now,
                    duration: fault.duration)
                victim.abandon(cause: "nemesis disconnect", redialAfterMs: fault.duration)
                Task {
                    try? await Task.sleep(for: .milliseconds(fault.duration))
                    self.measureConvergence(
                        after: "\(victim.clientId.rawValue)'s disconnect", clients: [victim.clientId.rawValue])
                }
            case .partition, .slowClient:
                await shapeNetwork(fault, rng: &rng)
            }
        case .network:
            await shapeNetwork(fault, rng: &rng)
        }
    }

    /// A power-loss window: the server killed (SIGKILL), everything its database had not synced
    /// dropped, the filesystem mounted again, the server restarted after the window's duration.
    /// Embedded: the database is on the run's `whalesim lazyfs` mount. A team's server: its
    /// `--restart-command` and the `--lazyfs-control` file of its data directory's mount.
    private func losePower(_ fault: ScheduledFault) async {
        if let server = embeddedServer, let mount = lazyMount {
            // The note tells a reproducer cut from this record that the crash is a power loss.
            context?.recorder.record(.note("power loss"))
            context?.recorder.record(.serverCrash)
            let window = addWindow(
                kind: "power-loss", label: "power lost: server killed, unsynced writes dropped", start: clock.nowMs,
                duration: fault.duration)
            context?.metrics.outage(true)
            await server.kill()
            do { note("power loss at \(fault.start) ms: lazyfs \(try mount.losePower(torn: false))") } catch {
                markUnavailable("power-loss windows: the lazyfs mount did not come back: \(error)")
            }
            Task {
                try? await Task.sleep(for: .milliseconds(fault.duration))
                do { try await server.restart(); self.note("restarted on \(server.baseURL) after a power loss") } catch
                { self.note("the embedded server did not restart: \(error)") }
                self.context?.recorder.record(.serverRestart)
                self.context?.metrics.outage(false)
                self.endWindow(window)
                self.measureConvergence(after: "the power loss")
            }
        } else if embeddedServer == nil, let command = options.restartCommand, let control = options.lazyfsControl {
            await restartTeamServer(fault, command: command, dropControl: control)
        } else {
            // Marked unavailable before the load (preparePowerLoss); say which window it skipped.
            note("power-loss at \(fault.start) ms skipped: unavailable")
        }
    }

    /// A server-restart or power-loss window on a server whalesim does not start: `CMD kill`,
    /// `drop` into its lazyfs control file for a power loss, then `CMD start` after the duration.
    private func restartTeamServer(_ fault: ScheduledFault, command: String, dropControl: String?) async {
        let kind = dropControl == nil ? "server-restart" : "power-loss"
        if dropControl != nil { context?.recorder.record(.note("power loss")) }
        context?.recorder.record(.serverCrash)
        let window = addWindow(
            kind: kind,
            label: dropControl == nil
                ? "server killed and restarted (--restart-command)" : "power lost (--restart-command, lazyfs drop)",
            start: clock.nowMs, duration: fault.duration)
        context?.metrics.outage(true)
        if let failure = Self.runRestartCommand(command, phase: "kill") { note(failure) }
        if let control = dropControl {
            do { try Data("drop\n".utf8).write(to: URL(fileURLWithPath: control)) } catch {
                markUnavailable("power-loss windows: cannot write drop to --lazyfs-control \(control): \(error)")
            }
        }
        Task {
            try? await Task.sleep(for: .milliseconds(fault.duration))
            if let failure = Self.runRestartCommand(command, phase: "start") { self.note(failure) }
            self.context?.recorder.record(.serverRestart)
            self.context?.metrics.outage(false)
            self.endWindow(window)
            self.measureConvergence(after: "the \(kind)")
        }
    }

    /// Runs `/bin/sh -c 'COMMAND PHASE'` (WHALESIM_PHASE=PHASE too), waiting up to 60 s for the
    /// shell only; nil when it exits 0. posix_spawn and waitpid, not Foundation's Process: a
    /// `start` that leaves the server running in the background keeps Process's exit pipe open,
    /// and Process would wait for the server.
    static func runRestartCommand(_ command: String, phase: String) -> String? {
        var environment = ProcessInfo.processInfo.environment
        environment["WHALESIM_PHASE"] = phase
        let words: [String] = ["/bin/sh", "-c", "\(command) \(phase)"]
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for p in argv + envp { free(p) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/sh", &actions, nil, argv, envp)
        guard spawned == 0 else {
            return "--restart-command \(phase) could not start: \(String(cString: strerror(spawned)))"
        }
        let deadline = ContinuousClock.now + .seconds(60)
        var status: Int32 = 0
        while waitpid(pid, &status, WNOHANG) == 0 {
            guard ContinuousClock.now < deadline else {
                kill(pid, SIGKILL)
                waitpid(pid, &status, 0)
                return "--restart-command \(phase) did not finish within 60 s"
            }
            Thread.sleep(forTimeInterval: 0.01)
        }
        let exited = status & 0x7f == 0, code = (status >> 8) & 0xff
        return exited && code == 0
            ? nil : "--restart-command \(phase) \(exited ? "exited \(code)" : "was killed by signal \(status & 0x7f)")"
    }

    /// Opens and closes the scenario's windowed catalog faults (the simulator's schedule, ticks as
    /// ms): client-side ones in every client's session; a server-side one cannot be switched in a
    /// running server, so it is noted and left off.
    func runFaultSwitches(context: RunContext, loadStart: Int, windowed: Set<String>) async {
        guard !windowed.isEmpty else { return }
        let intervals = scenario.faultIntervals(seed: options.seed, runLength: spec.durationMs).filter {
            windowed.contains($0.name)
        }
        var open: [String: Int] = [:]
        for s in FaultInterval.switches(intervals) {
            guard let fault = Fault(rawValue: s.name) else { continue }
            guard fault.isClientSide else {
                if s.on {
                    note(
                        "\(s.name) is a server-side fault: windows cannot switch it in a running server (use it for the whole run)"
                    )
                }
                continue
            }
            let wait = loadStart + s.tick - clock.nowMs
            if wait > 0 { try? await Task.sleep(for: .milliseconds(wait)) }
            if Task.isCancelled || context.isLoadOver { break }
            var now = context.clientFaults
            if s.on { now.insert(fault) } else { now.remove(fault) }
            context.setClientFaults(now)
            for n in allUsers.compactMap(\.noteSession) { n.setFaults(now) }
            for m in allUsers.compactMap(\.modelPage) { m.setFaults(now) }
            context.recorder.record(.note(s.description))
            if s.on {
                open[s.name] = addWindow(
                    kind: s.name, label: "fault \(s.name)", start: clock.nowMs, duration: 0, recordNote: false)
            } else if let w = open.removeValue(forKey: s.name) {
                endWindow(w)
            }
        }
        // Windows still open close at the heal, as in the simulator.
        while !Task.isCancelled, !context.isLoadOver { try? await Task.sleep(for: .milliseconds(50)) }
        var off = context.clientFaults
        for name in open.keys.sorted() { if let f = Fault(rawValue: name) { off.remove(f) } }
        context.setClientFaults(off)
        for n in allUsers.compactMap(\.noteSession) { n.setFaults(off) }
        for m in allUsers.compactMap(\.modelPage) { m.setFaults(off) }
        for (_, w) in open.sorted(by: { $0.key < $1.key }) { endWindow(w) }
    }

    @discardableResult
    func addWindow(kind: String, label: String, start: Int, duration: Int, recordNote: Bool = true) -> Int {
        if recordNote { context?.recorder.record(.note("\(label) for \(duration) ms")) }
        return windows.withLockedValue { w in
            w.append(FaultWindow(kind: kind, label: label, start: start, end: start + duration))
            return w.count - 1
        }
    }

    /// Time to converge after a fault window: from its end until every client the fault touched
    /// (`names`; nil: every client) is joined and has caught up with the revision its note had on
    /// the server then (the `converge` histogram). For a window that touched many clients, a note
    /// says how their catch-up spread (p50, p99, last) and, when some had not caught up after 30 s,
    /// who and why (not joined, or how many revisions behind): where a slow recovery's time went.
    func measureConvergence(after label: String, clients names: Set<String>? = nil) {
        let start = clock.nowMs
        let targets = recorders.map(\.revision)
        let touched = allUsers.filter { names?.contains($0.name) ?? true }.compactMap(\.noteSession)
        Task {
            var caughtUpAt: [Int?] = Array(repeating: nil, count: touched.count)
            var pending = Array(touched.indices)
            while clock.nowMs - start < 30_000 {
                let now = clock.nowMs - start
                pending.removeAll { i in
                    let s = touched[i]
                    guard s.isJoined, s.revision >= targets[s.document] else { return false }
                    caughtUpAt[i] = now
                    return true
                }
                if pending.isEmpty {
                    metrics.latency("converge", us: Int64(clock.nowMs - start) * 1000)
                    if touched.count > 1 {
                        note("\(label): \(Self.spread(caughtUpAt.compactMap { $0 }, of: touched.count))")
                    }
                    return
                }
                await LoopSleep.sleep(ms: 10)
            }
            let behind = pending.prefix(5).map { i -> String in
                let s = touched[i]
                return s.isJoined
                    ? "\(s.clientId.rawValue) at revision \(s.revision) of \(targets[s.document])"
                    : "\(s.clientId.rawValue) not joined (\(s.connectionSummary))"
            }
            note(
                "the clients \(label) touched had not caught up 30 s after it: \(pending.count) of \(touched.count) behind (\(behind.joined(separator: "; "))\(pending.count > 5 ? "; …" : "")); the others \(Self.spread(caughtUpAt.compactMap { $0 }, of: touched.count))"
            )
        }
    }

    /// "1,000 clients caught up after p50 812 ms, p99 3,100 ms, the last 3,900 ms".
    static func spread(_ ms: [Int], of total: Int) -> String {
        let sorted = ms.sorted()
        guard let last = sorted.last else { return "none caught up" }
        func at(_ p: Double) -> Int {
            sorted[min(sorted.count - 1, Int((Double(sorted.count) * p / 100).rounded(.up)) - 1)]
        }
        return
            "\(sorted.count) of \(total) clients caught up after p50 \(at(50)) ms, p99 \(at(99)) ms, the last \(last) ms"
    }

    func endWindow(_ i: Int) {
        let now = clock.nowMs
        windows.withLockedValue { w in if i < w.count { w[i].end = now } }
    }
}
