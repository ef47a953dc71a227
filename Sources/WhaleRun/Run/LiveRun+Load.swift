import Foundation
import NIOConcurrencyHelpers
import WhaleSim

/// The load phases: users started on the load profile with the fault windows and the progress
/// line beside them, the load held for the scenario's duration (or until an abort or an
/// interruption), then drained: the schedulers stopped and the users let finish.
extension LiveRun {
    /// What the load phase started: its start, the runner's own probes (stopped when the run
    /// returns), and the tasks the drain stops.
    struct Load {
        /// When the load began (run clock, ms).
        var startMs: Int
        var lagProbe: RunnerLagProbe
        var trimmer: HeapTrimmer
        var starver: RunnerStarver?
        var userTasks: NIOLockedValueBox<[Task<Void, Never>]>
        var scheduler: Task<Void, Never>
        var faultTask: Task<Void, Never>
        var switchTask: Task<Void, Never>
        var progress: Task<Void, Never>

        /// Stops the probes, last started first.
        func stopProbes() {
            starver?.stop()
            trimmer.stop()
            lagProbe.stop()
        }
    }

    /// Notes how the virtual users' loops and pauses run, where that is not the default.
    func noteLoopChoices(context: RunContext) {
        if spec.runnerLoop == .nio {
            note(
                "the virtual users' note sockets, pauses and tasks ran on NIO's event loops (live.runner-loop: nio), not whalesim's own epoll loops"
            )
        } else if context.clientLoops.isEmpty {
            note("live.runner-loop: epoll needs Linux's epoll: the virtual users ran on NIO's event loops")
        }
        if spec.timerGridMs > 0 {
            note(
                "the virtual users' pauses end on a \(spec.timerGridMs) ms grid (live.timer-grid): their edits reach the server in steps, which can raise its latency at p50"
            )
        }
    }

    /// On lazyfs, what the setup wrote (users, imported accounts, tracking) is on the disk before
    /// the load, as a deployment's older data is once the kernel wrote it back: a power loss
    /// then takes what the load wrote and the server did not sync, not the whole database
    /// (at `storage.synchronous: off` nothing is ever synced, and every note would vanish).
    func writeBackBeforeLoad() {
        if let lazyMount {
            do { try lazyMount.writeback() } catch { note("lazyfs writeback before the load failed: \(error)") }
        } else if spec.server != .embedded, scenario.nemeses.contains(where: { $0.kind == .powerLoss }),
            let control = options.lazyfsControl
        {
            do { try Data("writeback\n".utf8).write(to: URL(fileURLWithPath: control)) } catch {
                note("writeback to --lazyfs-control \(control) before the load failed: \(error)")
            }
        }
    }

    /// Says what runs, then starts the runner's probes, the users' scheduler, the fault windows,
    /// the fault switches and the progress line.
    func startLoad(targets: Targets, prepared: Prepared, windowed: Set<String>) -> Load {
        let context = prepared.context, recorder = prepared.recorder
        output(
            "whalesim run \(scenario.name): \(scenario.clients) clients (\(spec.load)), \(spec.durationMs / 1000)s, server \(targets.serverURL), salesforce \(targets.salesforce?.baseURL ?? "none")\(options.shard.map { ", shard \($0.index)/\($0.count)" } ?? "")"
        )
        let loadStart = clock.nowMs
        loadStartMs = loadStart
        let lagProbe = RunnerLagProbe(metrics: metrics)
        let trimmer = HeapTrimmer()
        let starver = options.starveRunnerMs.map { RunnerStarver(blockMs: $0) }
        let userTasks = NIOLockedValueBox<[Task<Void, Never>]>([])
        let scheduler = Task {
            await self.scheduleUsers(context: context, recorder: recorder, loadStart: loadStart, tasks: userTasks)
        }
        let faultTask = Task { await self.runFaultWindows(context: context, loadStart: loadStart) }
        let switchTask = Task {
            await self.runFaultSwitches(context: context, loadStart: loadStart, windowed: windowed)
        }
        let progress = Task { await self.reportProgress(loadStart: loadStart) }
        return Load(
            startMs: loadStart, lagProbe: lagProbe, trimmer: trimmer, starver: starver, userTasks: userTasks,
            scheduler: scheduler, faultTask: faultTask, switchTask: switchTask, progress: progress)
    }

    /// The load runs until `deadline`, an abort (a threshold already lost, with `abort-on-fail`)
    /// or an interruption.
    func holdLoad(until deadline: Int) async {
        while clock.nowMs < deadline, abortReason.withLockedValue({ $0 }) == nil, interrupted == nil,
            options.replayPlan?.allPlayed != true
        {
            try? await Task.sleep(for: .milliseconds(100))
            if spec.abortOnFail, let lost = alreadyLostThreshold() { abortReason.withLockedValue { $0 = lost } }
        }
    }

    /// Ends the load: the scheduler and the fault tasks stop, users finish their current action,
    /// the progress line stops, and an abort or an interruption is said.
    func drainLoad(_ load: Load, context: RunContext) async {
        context.endLoad()
        load.scheduler.cancel()
        load.faultTask.cancel()
        load.switchTask.cancel()
        _ = await load.switchTask.value
        _ = await load.scheduler.value
        _ = await load.faultTask.value
        await letUsersFinish(load.userTasks)
        load.progress.cancel()
        _ = await load.progress.value
        if let reason = abortReason.withLockedValue({ $0 }) { output("aborted early: \(reason)") }
        if let reason = interrupted {
            output(
                "interrupted by \(reason) after \((clock.nowMs - load.startMs) / 1000) s of load: judging what was recorded"
            )
            note(
                "interrupted by \(reason) \(clock.nowMs - load.startMs) ms into the load (of \(spec.durationMs) ms); quiescence bounded to \(quiescenceBoundMs / 1000) s"
            )
        }
    }

    /// Users finish their current action; one stuck on a dead connection is cancelled.
    private func letUsersFinish(_ userTasks: NIOLockedValueBox<[Task<Void, Never>]>) async {
        let stragglers = userTasks.withLockedValue { $0 }
        let allDone = NIOLockedValueBox(false)
        let finished = Task {
            for t in stragglers { await t.value }
            allDone.withLockedValue { $0 = true }
        }
        let waitDeadline = clock.nowMs + (interrupted == nil ? 10_000 : 2_000)
        while clock.nowMs < waitDeadline, !allDone.withLockedValue({ $0 }) {
            try? await Task.sleep(for: .milliseconds(50))
        }
        for t in stragglers { t.cancel() }
        _ = finished
    }

    /// Whether this process runs client `i` (all of them, or its shard's).
    func owns(_ i: Int) -> Bool {
        guard let shard = options.shard else { return true }
        return i % shard.count == shard.index
    }

    /// Starts users as the load profile asks, in client-number order.
    private func scheduleUsers(
        context: RunContext, recorder: LiveRecorder, loadStart: Int, tasks: NIOLockedValueBox<[Task<Void, Never>]>
    ) async {
        var next = 0
        let total = scenario.clients
        let root = SimRandom(seed: options.seed)
        while !context.isLoadOver, !Task.isCancelled {
            let target = spec.load.clients(at: clock.nowMs - loadStart, total: total)
            while next < target, !context.isLoadOver {
                let i = next
                next += 1
                guard owns(i) else { continue }
                let name = String(format: "c%03d", i + 1)
                let d = i % scenario.documents
                let index = recorder.addClient(name: name, document: d)
                let who = Identities.whaler[i % Identities.whaler.count]
                let sf = (try? salesforceCredentials(i)) ?? (user: "", password: "")
                let user = VirtualUser(
                    index: index, name: name,
                    identity: .init(
                        email: who.email, password: who.password, salesforceUser: sf.user,
                        salesforcePassword: sf.password),
                    document: d, accountId: recorder.documentNames[d], run: context, rng: root.derive(UInt64(i + 1)))
                users.withLockedValue { $0.append(user) }
                // With `live.runner-loop: epoll` the user's task runs on its loop: its pauses, its
                // edits and its note's frames on one thread (HTTP and model pages stay on NIO's).
                let task = Task(executorPreference: context.clientLoop(index)) {
                    if await user.start() { await user.act() }
                }
                tasks.withLockedValue { $0.append(task) }
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }
}
