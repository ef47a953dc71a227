import Foundation
import SalesforceFake
import WhaleSim

/// The last phase: the simulator's checkers and the thresholds on what the run recorded, and
/// the verdicts an interrupted run or one out of open files can still give.
extension LiveRun {
    /// The reconciled history judged, with the run's figures, series and provenance in the result.
    func judgeRun(recorder: LiveRecorder, quiet: Bool, finals: Finals, salesforceLog: [RequestLogEntry]?) async
        -> LiveRunResult
    {
        // What the users' loops sampled since their last merge (at most 100 ms of it).
        await metrics.drainLoops()
        let endMs = finals.endMs
        var result = judge(
            history: reconcile(recorder.history(), accounts: finals.accounts), endMs: endMs, quiet: quiet)
        result.unavailable = unavailable.withLockedValue { $0 }
        result.epochStartMs = epochStartMs
        result.baseRevisions = recorder.baselines.map(\.revision)
        result.bucketHistograms = metrics.bucketHistograms(endMs: endMs)
        result.shard = options.shard
        result.salesforce = salesforceLog.map(SalesforceFigures.init(entries:))
        result.steadyWindow = steadyWindow
        return result
    }

    /// A latency or error threshold already lost (for `abort-on-fail`): only upper bounds on
    /// figures that cannot come back (max, counts, errors) or after enough samples.
    func alreadyLostThreshold() -> String? {
        let totals = metrics.totals
        for t in scenario.metricThresholds where t.canOnlyGetWorse && t.scope == nil {
            guard let actual = figure(t, totals: totals) else { continue }
            let settled =
                t.stat == "max" || t.stat == "count" || t.metric == "errors" && t.stat == "count"
                || (totals[t.metric]?.count ?? 0) >= 1000 || (t.metric == "errors" && metrics.attempts >= 1000)
            if settled, !t.isMet(by: actual) {
                return "\(t.text) (now \(LiveJudge.show(actual, metric: t.metric, stat: t.stat)))"
            }
        }
        return nil
    }

    func figure(_ t: MetricThreshold, totals: [String: LatencyHistogram]) -> Double? {
        LiveJudge.figure(t, LiveJudge.Figures(totals: totals, errors: metrics.errorCount, attempts: metrics.attempts))
    }

    private func judge(history: History, endMs: Int, quiet: Bool) -> LiveRunResult {
        let results = checkResults(history: history, quiet: quiet)
        let verdict = Checkers.merged(results)
        let thresholds = LiveJudge.thresholds(scenario, results)
        let totals = metrics.totals
        let faultWindows = windows.withLockedValue { $0 }
        var figures = LiveJudge.Figures(
            totals: totals, buckets: metrics.bucketsByMetric, errors: metrics.errorCount, attempts: metrics.attempts,
            lagBoundMs: spec.lagBoundMs)
        figures.steady = steadyWindow
        figures.excluded = LiveJudge.excludedWindows(faultWindows)
        let contended = machine.contendedWindows()
        figures.contended = contended
        figures.contentionRule = machine.contentionRule
        let metricOutcomes = LiveJudge.metricThresholds(scenario, figures)
        let saturated = LiveJudge.saturatedWindows(figures)
        if !saturated.isEmpty {
            let seconds = saturated.map { ($0.end - $0.start) / 1000 }.reduce(0, +)
            note(
                "the load generator was saturated (runner_lag p99 past \(spec.lagBoundMs) ms) for \(seconds) s in \(saturated.count) stretch\(saturated.count == 1 ? "" : "es"), shaded in the report"
            )
        }
        if !contended.isEmpty {
            let seconds = contended.map { ($0.end - $0.start) / 1000 }.reduce(0, +)
            note(
                "the machine was busy with other processes for \(seconds) s in \(contended.count) stretch\(contended.count == 1 ? "" : "es") (\(machine.contentionRule)), shaded in the report"
            )
        }
        var series = metrics.series(endMs: endMs, faultWindows: faultWindows + saturated + contended)
        series.machine = machine.series(buckets: series.bucketStarts.count)
        return LiveRunResult(
            scenario: scenario, history: history, results: results, verdict: verdict, thresholds: thresholds,
            metricThresholds: metricOutcomes, histograms: totals,
            series: series,
            errors: metrics.errorCount, attempts: metrics.attempts, clientsStarted: users.withLockedValue { $0.count },
            aborted: abortReason.withLockedValue { $0 }, durationMs: endMs, notes: notes.withLockedValue { $0 },
            interrupted: interrupted, replay: options.replayPlan?.record())
    }

    /// The checkers' verdicts (a shard's are `unknown`: only the merged history can be judged),
    /// made `unknown` where an interruption or a lack of open files leaves them unfounded.
    private func checkResults(history: History, quiet: Bool) -> [CheckResult] {
        var results: [CheckResult]
        if let shard = options.shard {
            // Other shards' clients' ops are in this shard's server history: only the merged history can be judged.
            results = scenario.checkers.map {
                CheckResult(
                    checker: $0, verdict: .unknown,
                    evidence: ["shard \(shard.index)/\(shard.count): judged on the merged history by whalesim merge"])
            }
        } else {
            results = LiveJudge.checks(scenario, history)
        }
        if let reason = interrupted {
            results = Self.unfinished(results, interruptedBy: reason, quiet: quiet, cursorsProbed: cursorsProbed)
        }
        let starved = metrics.filesExhausted
        if starved > 0 {
            let limit = OpenFiles.limits().map { " (limit \($0.soft))" } ?? ""
            let why =
                "whalesim ran out of open files\(limit): \(starved) of its connects failed for it, so a client that did not catch up may be whalesim's, not the server's"
            note(why)
            results = Self.outOfFiles(results, why: why)
        }
        return results
    }

    /// An interrupted run's verdicts: a checker that needs what the interruption cut short says
    /// `unknown` with why. Without quiescence, the end-state checkers (convergence, liveness,
    /// cursors, model) cannot tell a lagging replica from a diverged one; without the cursor
    /// probe, cursors has nothing to judge. The history's own checkers (intention, revisions)
    /// stand: what they found is in what was recorded.
    static func unfinished(_ results: [CheckResult], interruptedBy reason: String, quiet: Bool, cursorsProbed: Bool)
        -> [CheckResult]
    {
        results.map { r in
            let why: String? =
                if !quiet && endStateCheckers.contains(r.checker) {
                    "interrupted by \(reason) before the run was quiescent: the end state cannot be judged"
                } else if r.checker == .cursors && !cursorsProbed {
                    "interrupted by \(reason): the cursor probe did not run"
                } else { nil }
            guard let why, r.verdict != .unknown else { return r }
            return unknown(r, because: why)
        }
    }

    /// A run in which whalesim could not open its own sockets: the end-state checkers (a client
    /// that could not redial never converges, never quiesces) say `unknown` instead of `invalid`,
    /// with why; what they found valid stands, and so do the history's own checkers.
    static func outOfFiles(_ results: [CheckResult], why: String) -> [CheckResult] {
        results.map { r in endStateCheckers.contains(r.checker) && r.verdict == .invalid ? unknown(r, because: why) : r
        }
    }

    /// The checkers that judge the run's end state, which only a quiescent run whalesim fully
    /// observed can show; intention and revisions judge what the history recorded.
    static let endStateCheckers: Set<CheckerName> = [.convergence, .liveness, .cursors, .model]

    /// `r` made `unknown` because of `why`, keeping what it would have said when that was `invalid`.
    static func unknown(_ r: CheckResult, because why: String) -> CheckResult {
        var evidence = [why]
        if r.verdict == .invalid { evidence.append("(it would have said invalid: \(r.evidence.first ?? ""))") }
        return CheckResult(checker: r.checker, verdict: .unknown, evidence: evidence, findings: r.findings)
    }
}
