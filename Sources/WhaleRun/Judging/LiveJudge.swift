import WhaleReports
import WhaleSim

/// Judging a live history and its figures, the same way for `run` and `merge`: the simulator's
/// checkers (the model checker on the model pages the run drove), the
/// checker thresholds, and the metric thresholds against the whole run's histograms.
enum LiveJudge {
    static func checks(_ scenario: Scenario, _ history: History) -> [CheckResult] {
        // The model checker finds nothing to check in a history without model pages and would
        // say valid: say unknown instead, with the reason.
        let drove = history.events.contains { if case .modelClientFinal = $0.event { true } else { false } }
        var results = Checkers.run(scenario.checkers.filter { $0 != .model || drove }, on: history)
        if scenario.checkers.contains(.model), !drove {
            let why =
                scenario.model == nil
                ? "the scenario has no model section"
                : "the server offers no whalesim GraphQL extensions, so no model page was driven"
            results.append(
                CheckResult(checker: .model, verdict: .unknown, evidence: ["no model pages recorded: \(why)"]))
        }
        return results
    }

    static func thresholds(_ scenario: Scenario, _ results: [CheckResult]) -> [(Threshold, Bool)] {
        scenario.thresholds.map { t in (t, t.isMet(by: results.first { $0.checker == t.checker }?.verdict ?? .unknown))
        }
    }

    /// What metric thresholds are judged on: the whole run's histograms, the per-second ones (for
    /// a scoped threshold), the windows that scopes leave out, and the runner's lag bound.
    struct Figures {
        var totals: [String: LatencyHistogram]
        /// Metric → bucket index → that second's histogram.
        var buckets: [String: [Int: LatencyHistogram]] = [:]
        var bucketMs = LiveMetrics.bucketMs
        /// The steady window (ms of the run clock): full load, before the load ends.
        var steady: Range<Int>?
        /// Server-wide fault windows with their recovery margin: out of every scope.
        var excluded: [Range<Int>] = []
        var errors: Int
        var attempts: Int
        var lagBoundMs = LiveSpec().lagBoundMs
        /// Stretches left out of every threshold, scoped or not (``excludingSaturation()``).
        var saturatedOut: [Range<Int>] = []
        /// Seconds in which other processes took the machine's CPU (``MachineLoad``): the server
        /// may have been starved while the runner was not, so a breach there is not the server's.
        var contended: [FaultWindow] = []
        /// What made a second contended, in words (``MachineLoad/contentionRule``).
        var contentionRule = MachineLoad().contentionRule

        /// Whether bucket `b` lies in `scope` (whole seconds only: a bucket that touches an
        /// excluded window or the edge of the steady window is left out).
        func contains(_ b: Int, _ scope: MetricThreshold.Scope) -> Bool {
            let r = b * bucketMs..<(b + 1) * bucketMs
            if excluded.contains(where: { $0.overlaps(r) }) { return false }
            if saturatedOut.contains(where: { $0.overlaps(r) }) { return false }
            switch scope {
            case .outsideFaults: return true
            case .steady: return steady.map { $0.lowerBound <= r.lowerBound && r.upperBound <= $0.upperBound } ?? false
            }
        }

        func histogram(_ metric: String, _ scope: MetricThreshold.Scope?) -> LatencyHistogram? {
            guard scope != nil || !saturatedOut.isEmpty else { return totals[metric] }
            var h: LatencyHistogram?
            for (b, one) in (buckets[metric] ?? [:]).sorted(by: { $0.key < $1.key }) {
                if let scope {
                    guard contains(b, scope) else { continue }
                } else {
                    let r = b * bucketMs..<(b + 1) * bucketMs
                    guard !saturatedOut.contains(where: { $0.overlaps(r) }) else { continue }
                }
                if h == nil { h = one } else { h!.add(one) }
            }
            return h
        }

        /// The same figures without the seconds the generator was saturated in or the machine
        /// contended, and the second after each (an op sent late is acknowledged late), with what
        /// was left out in words; nil when neither happened.
        func excludingSaturation() -> (figures: Figures, why: String)? {
            let saturated = LiveJudge.saturatedWindows(self)
            guard !saturated.isEmpty || !contended.isEmpty else { return nil }
            var f = self
            f.saturatedOut = (saturated + contended).map { $0.start..<($0.end + bucketMs) }
            func seconds(_ w: [FaultWindow]) -> Int { w.reduce(0) { $0 + ($1.end - $1.start) } / bucketMs }
            var why: [String] = []
            if !saturated.isEmpty {
                why.append(
                    "whose load generator was saturated for \(seconds(saturated)) s (runner_lag p99 past \(lagBoundMs)ms)"
                )
            }
            if !contended.isEmpty {
                why.append(
                    "whose machine was busy with other processes for \(seconds(contended)) s (\(contentionRule))")
            }
            return (f, why.joined(separator: " and "))
        }
    }

    /// The measured value a metric threshold is judged on: ms for latencies, a fraction for `errors.rate`.
    static func figure(_ t: MetricThreshold, _ f: Figures) -> Double? {
        if t.metric == "errors" {
            return t.stat == "count" ? Double(f.errors) : Double(f.errors) / Double(max(1, f.attempts))
        }
        if t.stat == "count" { return Double(f.histogram(t.metric, t.scope)?.count ?? 0) }
        return f.histogram(t.metric, t.scope)?.stat(t.stat)
    }

    /// Why a latency threshold cannot be judged: the runner's own lag over the same window was
    /// past its bound, so what it measured may be its own delay (nil: it can be judged).
    static func saturation(_ t: MetricThreshold, _ f: Figures) -> String? {
        guard t.isLatency, t.metric != "runner_lag", let lag = f.histogram("runner_lag", t.scope)?.percentileMs(99)
        else { return nil }
        guard lag > Double(f.lagBoundMs) else { return nil }
        return String(
            format:
                "the load generator was saturated: its scheduling lag (runner_lag) p99 was %.1fms over %@, past its bound of %dms, so this latency may be the runner's own",
            lag, t.scope.map { "the \($0.rawValue) window" } ?? "the run", f.lagBoundMs)
    }

    /// Why a breached latency threshold cannot be blamed on the server: over its window the
    /// runner's lag was within its bound, but the breach comes from the seconds in which it was
    /// not (its p99 there past the bound); without them (and the second after each) the
    /// threshold is met, or nothing is left to judge. Nil: the breach stands without them too.
    static func breachOnlyWhileSaturated(_ t: MetricThreshold, _ actual: Double, _ f: Figures) -> String? {
        guard t.isLatency, t.stat != "count", t.metric != "runner_lag", let (g, why) = f.excludingSaturation() else {
            return nil
        }
        let measured = show(actual, metric: t.metric, stat: t.stat)
        let lead = "breached (\(measured)) in a run \(why)"
        guard let without = figure(t, g), (g.histogram(t.metric, t.scope)?.count ?? 0) > 0 else {
            return lead
                + ", and nothing was measured outside those seconds: this latency may be the runner's or the machine's, not the server's"
        }
        guard t.isMet(by: without) else { return nil }
        return lead
            + "; without those seconds it is \(show(without, metric: t.metric, stat: t.stat)), within the threshold: the breach may be the runner's or the machine's, not the server's"
    }

    static func metricThresholds(_ scenario: Scenario, _ f: Figures) -> [LiveRunResult.MetricOutcome] {
        scenario.metricThresholds.map { t in
            let actual = figure(t, f)
            var outcome = LiveRunResult.MetricOutcome(
                threshold: t.text, actual: actual, met: actual.map { t.isMet(by: $0) } ?? false)
            if actual == nil {
                // Nothing measured is nothing to judge: an alarm about an empty window (a power
                // loss every 6 s leaves no steady second) is a false alarm, so unknown, not breached.
                outcome.unknown = noSamples(t, f)
            } else if let why = saturation(t, f) {
                outcome.unknown = why
                outcome.met = false
            } else if let actual, !outcome.met, let why = breachOnlyWhileSaturated(t, actual, f) {
                outcome.unknown = why
            }
            return outcome
        }
    }

    /// Why a threshold has no figure: which window held no samples of its metric, and why it may be empty.
    static func noSamples(_ t: MetricThreshold, _ f: Figures) -> String {
        let metric = t.metric
        guard let scope = t.scope else {
            return "no samples of \(metric) over the run: nothing was measured to judge"
        }
        let why =
            scope == .steady && f.steady == nil
            ? "the load never held steady (it ramped until it ended)"
            : "the fault windows and their \(recoveryMarginMs / 1000) s recovery margins, and any saturated seconds, cover it"
        return "no samples of \(metric) in the \(scope.rawValue) window: \(why), so there is nothing to judge"
    }

    /// A measured value as thresholds show it: `12.34ms`, `0.120%`, `42`.
    static func show(_ v: Double, metric: String, stat: String) -> String {
        if metric == "errors" && stat == "rate" { return String(format: "%.3f%%", v * 100) }
        if stat == "count" { return String(Int(v)) }
        return String(format: "%.2fms", v)
    }
}

extension LiveJudge {
    /// After a server-wide fault window the clients redial, resync and resend: how long that
    /// recovery is kept out of scoped thresholds.
    static let recoveryMarginMs = 3_000

    /// The windows scoped thresholds leave out: every fault window but one client's disconnect
    /// (its ops that crossed the drop are `op_ack_resent` already), each with its recovery margin.
    static func excludedWindows(_ windows: [FaultWindow]) -> [Range<Int>] {
        windows.filter { $0.kind != "disconnect" && $0.kind != "saturated" && $0.kind != "contended" }.map {
            $0.start..<max($0.start + 1, $0.end + recoveryMarginMs)
        }
    }

    /// The seconds in which the runner's lag p99 was past its bound, as report windows (merged
    /// when adjacent), so the charts shade where the generator, not the server, set the pace.
    static func saturatedWindows(_ f: Figures) -> [FaultWindow] {
        var out: [FaultWindow] = []
        for (b, h) in (f.buckets["runner_lag"] ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard let p99 = h.percentileMs(99), p99 > Double(f.lagBoundMs) else { continue }
            let start = b * f.bucketMs, end = start + f.bucketMs
            if let last = out.last, last.end == start {
                out[out.count - 1].end = end
            } else {
                out.append(
                    FaultWindow(
                        kind: "saturated", label: "load generator saturated (runner_lag p99 > \(f.lagBoundMs) ms)",
                        start: start, end: end))
            }
        }
        return out
    }
}
