/// `junit.xml`: one `<testsuite>` for the run with one `<testcase>` per checker and per
/// threshold. An invalid checker or a breached threshold is a `<failure>` carrying its
/// evidence; an unknown checker is `<skipped>` with the reason. Shaped to the common JUnit
/// schema (Jenkins' junit-10.xsd), so CI systems read it.
public struct JUnitXML {
    public var run: RunDirectory

    public init(run: RunDirectory) { self.run = run }

    public func render() -> String {
        let r = run.record
        let suite = "whalesim.\(r.scenario)"
        var cases = ""
        var failures = 0, skipped = 0
        for v in r.verdicts {
            cases += "    <testcase classname=\"\(xml(suite)).checkers\" name=\"\(xml(v.checker))\" time=\"0\">\n"
            let evidence = v.evidence.joined(separator: "\n")
            switch v.verdict {
            case "valid": break
            case "invalid":
                failures += 1
                cases += "      <failure message=\"\(xml(v.checker)) is invalid\(v.evidence.first.map { ": " + xml($0) } ?? "")\" type=\"invalid\">\(xml(evidence))</failure>\n"
            default:
                skipped += 1
                cases += "      <skipped message=\"\(xml(v.checker)) is \(xml(v.verdict))\(v.evidence.first.map { ": " + xml($0) } ?? "")\"/>\n"
            }
            cases += "    </testcase>\n"
        }
        for t in r.thresholds {
            cases += "    <testcase classname=\"\(xml(suite)).thresholds\" name=\"\(xml(t.threshold))\" time=\"0\">\n"
            if let why = t.unknown {
                cases += "      <skipped message=\"\(xml(why))\"/>\n"
            } else if !t.met {
                failures += 1
                cases += "      <failure message=\"threshold breached: \(xml(t.threshold))\" type=\"threshold\">\(xml(thresholdEvidence(t.threshold)))</failure>\n"
            }
            cases += "    </testcase>\n"
        }
        let tests = r.verdicts.count + r.thresholds.count
        let time = r.wallSeconds.map { String(format: "%.3f", $0) } ?? "0"
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out += "<testsuites name=\"whalesim\" tests=\"\(tests)\" failures=\"\(failures)\" errors=\"0\" time=\"\(time)\">\n"
        out += "  <testsuite name=\"\(xml(suite)) seed \(r.seed)\" tests=\"\(tests)\" failures=\"\(failures)\" errors=\"0\" skipped=\"\(skipped)\" time=\"\(time)\""
        if let started = r.startedAt { out += " timestamp=\"\(xml(Self.junitTimestamp(started)))\"" }
        out += ">\n    <properties>\n"
        var properties: [(String, String)] = [("scenario", r.scenario), ("seed", String(r.seed)), ("verdict", r.verdict),
                                              ("replay", r.replayCommand), ("historyHash", r.historyHash), ("whalesimVersion", r.whalesimVersion)]
        if let s = r.shrunk { properties.append(("shrunkReplay", s.replayCommand)) }
        for (name, value) in properties { out += "      <property name=\"\(xml(name))\" value=\"\(xml(value))\"/>\n" }
        out += "    </properties>\n" + cases
        out += "    <system-out>\(xml("replay: " + (r.shrunk?.replayCommand ?? r.replayCommand)))</system-out>\n"
        out += "  </testsuite>\n</testsuites>\n"
        return out
    }

    /// The checker's evidence behind a breached `checker == verdict` threshold.
    private func thresholdEvidence(_ threshold: String) -> String {
        let checker = threshold.split(separator: " ").first.map(String.init) ?? ""
        guard let v = run.record.verdicts.first(where: { $0.checker == checker }) else { return "no verdict for \(checker)" }
        return (["\(checker) is \(v.verdict)"] + v.evidence).joined(separator: "\n")
    }

    /// JUnit's timestamp is ISO 8601 without a zone (xs:dateTime pattern in junit-10.xsd).
    static func junitTimestamp(_ iso: String) -> String {
        var s = iso
        if s.hasSuffix("Z") { s.removeLast() }
        return s
    }
}
