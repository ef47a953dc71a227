import WhaleCore

/// `junit.xml` (written by WhaleCore's one JUnit writer): one `<testsuite>` for the run with one `<testcase>` per checker and per
/// threshold. An invalid checker or a breached threshold is a `<failure>` carrying its
/// evidence; an unknown checker is `<skipped>` with the reason. Shaped to the common JUnit
/// schema (Jenkins' junit-10.xsd), so CI systems read it.
public struct JUnitXML {
    public var run: RunDirectory

    public init(run: RunDirectory) { self.run = run }

    public func render() -> String {
        let r = run.record
        let suite = "whalesim.\(r.scenario)"
        var cases: [JUnitDocument.Case] = []
        for v in r.verdicts {
            let first = v.evidence.first.map { ": " + $0 } ?? ""
            let outcome: JUnitDocument.Outcome =
                switch v.verdict {
                case "valid": .passed
                case "invalid":
                    .failed(
                        message: "\(v.checker) is invalid\(first)", type: "invalid",
                        text: v.evidence.joined(separator: "\n"))
                default: .skipped(message: "\(v.checker) is \(v.verdict)\(first)")
                }
            cases.append(.init(classname: suite + ".checkers", name: v.checker, outcome: outcome))
        }
        for t in r.thresholds {
            let outcome: JUnitDocument.Outcome =
                if let why = t.unknown { .skipped(message: why) } else if !t.met {
                    .failed(
                        message: "threshold breached: \(t.threshold)", type: "threshold",
                        text: thresholdEvidence(t.threshold))
                } else { .passed }
            cases.append(.init(classname: suite + ".thresholds", name: t.threshold, outcome: outcome))
        }
        var properties: [(name: String, value: String)] = [
            ("scenario", r.scenario), ("seed", String(r.seed)), ("verdict", r.verdict),
            ("replay", r.replayCommand), ("historyHash", r.historyHash), ("whalesimVersion", r.whalesimVersion),
        ]
        if let s = r.shrunk { properties.append(("shrunkReplay", s.replayCommand)) }
        let run = JUnitDocument.Suite(
            name: "\(suite) seed \(r.seed)", time: r.wallSeconds,
            timestamp: r.startedAt.map(JUnitDocument.timestamp(iso8601:)),
            properties: properties, cases: cases, systemOut: "replay: " + (r.shrunk?.replayCommand ?? r.replayCommand))
        return JUnitDocument(name: "whalesim", time: r.wallSeconds, suites: [run]).render()
    }

    /// The checker's evidence behind a breached `checker == verdict` threshold.
    private func thresholdEvidence(_ threshold: String) -> String {
        let checker = threshold.split(separator: " ").first.map(String.init) ?? ""
        guard let v = run.record.verdicts.first(where: { $0.checker == checker }) else {
            return "no verdict for \(checker)"
        }
        return (["\(checker) is \(v.verdict)"] + v.evidence).joined(separator: "\n")
    }
}
