import WhaleSim

/// Judging a live history and its figures, the same way for `run` and `merge`: the simulator's
/// checkers (the model checker on the model pages the run drove), the
/// checker thresholds, and the metric thresholds against the whole run's histograms.
enum LiveJudge {
    static func checks(_ scenario: Scenario, _ history: History) -> [CheckResult] {
        // The model checker finds nothing to check in a history without model pages and would
        // say valid: say unknown instead, with the reason.
        let drove = history.entries.contains { if case .modelClientFinal = $0.event { true } else { false } }
        var results = Checkers.run(scenario.checkers.filter { $0 != .model || drove }, on: history)
        if scenario.checkers.contains(.model), !drove {
            let why = scenario.model == nil ? "the scenario has no model section" : "the server offers no whalesim GraphQL extensions, so no model page was driven"
            results.append(CheckResult(checker: .model, verdict: .unknown, evidence: ["no model pages recorded: \(why)"]))
        }
        return results
    }

    static func thresholds(_ scenario: Scenario, _ results: [CheckResult]) -> [(Threshold, Bool)] {
        scenario.thresholds.map { t in (t, t.isMet(by: results.first { $0.checker == t.checker }?.verdict ?? .unknown)) }
    }

    /// The measured value a metric threshold is judged on: ms for latencies, a fraction for `errors.rate`.
    static func figure(_ t: MetricThreshold, totals: [String: LatencyHistogram], errors: Int, attempts: Int) -> Double? {
        if t.metric == "errors" { return t.stat == "count" ? Double(errors) : Double(errors) / Double(max(1, attempts)) }
        if t.stat == "count" { return Double(totals[t.metric]?.count ?? 0) }
        return totals[t.metric]?.stat(t.stat)
    }

    static func metricThresholds(_ scenario: Scenario, totals: [String: LatencyHistogram], errors: Int, attempts: Int) -> [LiveRunResult.MetricOutcome] {
        scenario.metricThresholds.map { t in
            let actual = figure(t, totals: totals, errors: errors, attempts: attempts)
            return LiveRunResult.MetricOutcome(threshold: t.text, actual: actual, met: actual.map { t.isMet(by: $0) } ?? false)
        }
    }

    /// A measured value as thresholds show it: `12.34ms`, `0.120%`, `42`.
    static func show(_ v: Double, metric: String, stat: String) -> String {
        if metric == "errors" && stat == "rate" { return String(format: "%.3f%%", v * 100) }
        if stat == "count" { return String(Int(v)) }
        return String(format: "%.2fms", v)
    }
}
