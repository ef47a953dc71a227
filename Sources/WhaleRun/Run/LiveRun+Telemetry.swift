import WhaleReports
import WhaleSim
import WhaleTelemetry

extension LiveRun {
    /// The run's figures now, as `run --listen` serves them (`/metrics`, `/events`, the
    /// dashboard): the latencies as fixed-bucket histograms, the counts, the state of the load
    /// (clients, the runner's lag, the machine, the fault windows in force) and the checkers as
    /// they stand (``checkerStates()``).
    ///
    /// Reads what the run already keeps (``LiveMetrics``, the fault windows, ``MachineLoad``)
    /// under their own locks, once a second: the users' hot path gains nothing to do.
    public func telemetrySnapshot(phase: String? = nil) -> TelemetrySnapshot {
        let now = clock.nowMs
        let started = loadStartMs > 0
        var status = RunStatus(
            phase: phase ?? (started ? "running" : "starting"),
            elapsedSeconds: started ? Double(now - loadStartMs) / 1000 : 0,
            title: "run \(scenario.name) (seed \(options.seed))")
        var snapshot = TelemetrySnapshot(run: telemetryLabels, status: status)
        for family in MetricCatalog.runner { snapshot.declare(family) }

        let totals = metrics.totals
        let latencies: [(MetricDescriptor, String)] = [
            (MetricCatalog.opAck, "op_ack"), (MetricCatalog.opRemoteApply, "op_remote_apply"),
            (MetricCatalog.converge, "converge"), (MetricCatalog.connect, "connect"),
            (MetricCatalog.login, "login"), (MetricCatalog.graphql, "graphql"), (MetricCatalog.soql, "soql"),
        ]
        let lastSecond = now / LiveMetrics.bucketMs - 1
        for (family, name) in latencies {
            let histogram = Self.telemetryHistogram(totals[name])
            var quantiles: [String: Double]?
            if let second = metrics.inMemorySecond(lastSecond, of: name), second.count > 0 {
                quantiles = [:]
                for (key, p) in [("0.5", 50.0), ("0.95", 95.0), ("0.99", 99.0)] {
                    quantiles?[key] = second.percentileMs(p).map { $0 / 1000 }
                }
            }
            snapshot.set(family, histogram: histogram, quantiles: quantiles)
        }

        snapshot.set(MetricCatalog.ops, metrics.counterTotal("ops_invoked") + metrics.counterTotal("model_mutations"))
        snapshot.set(MetricCatalog.acks, metrics.counterTotal("ops_acked") + metrics.counterTotal("model_acks"))
        // An op acked after its client's redial is timed as op_ack_resent: it was sent again.
        snapshot.set(MetricCatalog.resends, (totals["op_ack_resent"]?.count ?? 0))
        let errors = metrics.rawCounters.errors
        for kind in errors.keys.sorted() {
            snapshot.set(MetricCatalog.errors, labels: ["code": kind], errors[kind]!.values.reduce(0, +))
        }
        snapshot.set(MetricCatalog.reconnects, metrics.errorSeriesTotal("disconnect"))
        snapshot.set(MetricCatalog.redials, metrics.errorSeriesTotal("connect"))
        snapshot.set(MetricCatalog.clientsConnected, metrics.connected)
        if let lag = metrics.inMemorySecond(lastSecond, of: "runner_lag")?.maxMs {
            snapshot.set(MetricCatalog.runnerLag, lag / 1000)
        }
        if let second = machine.bySecond[lastSecond] {
            snapshot.set(MetricCatalog.machineBusy, second.busy)
            snapshot.set(MetricCatalog.machineContended, machine.isContended(second) ? 1 : 0)
        }

        let windows = windows.withLockedValue { $0 }
        var inForce: [String: Bool] = [:]
        for w in windows {
            let active = w.start <= now && now < w.end
            inForce[w.kind] = (inForce[w.kind] ?? false) || active
            status.faultWindows.append(
                RunStatus.FaultWindow(
                    kind: w.kind, startSeconds: Double(w.start - loadStartMs) / 1000,
                    endSeconds: w.end > now ? nil : Double(w.end - loadStartMs) / 1000))
        }
        for kind in inForce.keys.sorted() {
            snapshot.set(MetricCatalog.faultWindowActive, labels: ["kind": kind], inForce[kind]! ? 1 : 0)
        }
        if started && phase == nil { liveChecks.refresh(recorder: liveRecorder.withLockedValue { $0 }, clock: clock) }
        status.checkers = checkerStates()
        for checker in status.checkers {
            snapshot.set(MetricCatalog.checkerViolations, labels: ["checker": checker.name], checker.violations)
            snapshot.set(MetricCatalog.checkerUnknowns, labels: ["checker": checker.name], checker.unknowns)
        }
        snapshot.status = status
        return snapshot
    }

    /// Each checker as it stands mid-run: intention and revisions with what they found in the
    /// history so far (``LiveChecks``), the others `pending` until the verdict, with why.
    func checkerStates() -> [RunStatus.CheckerState] {
        let pass = liveChecks.last
        return scenario.checkers.map { checker in
            let name = checker.rawValue
            if let shard = options.shard {
                return RunStatus.CheckerState(
                    name: name, state: "pending",
                    note: "shard \(shard.index)/\(shard.count): judged on the merged history by whalesim merge")
            }
            guard liveChecks.judgesLive(checker) else {
                return RunStatus.CheckerState(
                    name: name, state: "pending", note: "judged at the end: it needs the run healed and quiescent")
            }
            guard let pass, let found = pass.findings[checker] else {
                return RunStatus.CheckerState(name: name, state: "pending", note: "the first check is under way")
            }
            let at = "\(max(0, pass.atMs - loadStartMs) / 1000) s"
            if found.violations > 0 {
                return RunStatus.CheckerState(
                    name: name, state: "invalid", violations: found.violations,
                    note: "\(found.evidence.first ?? "") (history to \(at))")
            }
            return RunStatus.CheckerState(
                name: name, state: "valid",
                note: "so far: \(pass.events) events judged, to \(at); the verdict comes at the end")
        }
    }

    /// The last snapshot: the figures as the run ended and the checkers' verdicts, the run's
    /// verdict in words and where its report is.
    public func finalTelemetry(
        _ result: LiveRunResult, verdict: String, verdictNote: String?, reportURL: String?
    ) -> TelemetrySnapshot {
        var snapshot = telemetrySnapshot(phase: "finished")
        // A counter never goes down: the final count is at least what the live view counted.
        let live = liveChecks.last?.findings ?? [:]
        snapshot.status.checkers = result.results.map { r in
            RunStatus.CheckerState(
                name: r.checker.rawValue, state: r.verdict.rawValue,
                violations: max(live[r.checker]?.violations ?? 0, r.verdict == .invalid ? 1 : 0),
                unknowns: r.verdict == .unknown ? 1 : 0, note: r.evidence.first)
        }
        for c in snapshot.status.checkers {
            snapshot.set(MetricCatalog.checkerViolations, labels: ["checker": c.name], c.violations)
            snapshot.set(MetricCatalog.checkerUnknowns, labels: ["checker": c.name], c.unknowns)
        }
        snapshot.status.verdict = verdict
        snapshot.status.verdictNote = verdictNote
        snapshot.status.reportURL = reportURL
        return snapshot
    }

    /// The labels every series carries: scenario, seed, run id (the run's start, base 36, as
    /// in its client names) and shard.
    var telemetryLabels: RunLabels {
        RunLabels(
            scenario: scenario.name, seed: String(options.seed), runID: String(epochStartMs, radix: 36),
            shard: options.shard.map { "\($0.index)/\($0.count)" } ?? "0/1")
    }

    /// An HdrHistogram of microseconds as Prometheus buckets of seconds.
    static func telemetryHistogram(_ histogram: LatencyHistogram?) -> TelemetryHistogram {
        var out = TelemetryHistogram()
        guard let histogram, histogram.count > 0 else { return out }
        for pair in histogram.encoded where pair.count == 2 && pair[1] > 0 {
            out.add(Double(pair[0]) / 1_000_000, count: pair[1])
        }
        return out
    }
}
