import Foundation

/// Two runs (or two sets of repeated runs) side by side for regression tracking
/// (`whalesim report --compare A B`): latency percentiles, verdicts, thresholds and counts.
/// B regressed when a *judged* latency figure grew past ``ComparisonRules``' allowances, or when
/// a verdict or a threshold got worse. The rules are built so two runs of one binary pass:
/// maxima and thin percentiles are shown but not judged, small absolute changes are noise, and
/// with several runs a side B's median run is held against A's worst.
///
/// ```swift
/// let c = RunComparison(a: ComparisonSide(path: pathA, summary: summaryA),
///                       b: ComparisonSide(path: pathB, runs: repeatedB), rules: ComparisonRules())
/// print(c.table()); exit(c.regressed ? 1 : 0)
/// ```
public struct RunComparison: Codable, Sendable, Equatable {
    public struct LatencyRow: Codable, Sendable, Equatable {
        public var metric: String
        public var stat: String
        public var unit: String
        /// A's figure: its value, or its worst run's with several runs.
        public var a: Double?
        /// B's figure: its value, or its median run's with several runs.
        public var b: Double?
        /// Every run's value, in run order (only when the side has more than one run).
        public var aRuns: [Double]?
        public var bRuns: [Double]?
        /// The fewest samples of this metric in any run on either side.
        public var samples: Int
        /// (b − a) / a; nil when either side is missing, the units differ, or a is 0 and b is too.
        public var change: Double?
        /// Whether the rules judge this figure at all (maxima and thin percentiles are only shown).
        public var judged: Bool
        /// Why a row is not judged or did not count ("max: shown, not judged", "312 samples < 1000 for p99",
        /// "+1.2 ms: within the 2 ms floor"); empty otherwise.
        public var note: String
        public var regressed: Bool
    }

    public struct VerdictRow: Codable, Sendable, Equatable {
        public var name: String
        public var a: String?
        public var b: String?
        public var worse: Bool
    }

    public struct CountRow: Codable, Sendable, Equatable {
        public var name: String
        /// The value, or the median run's with several runs.
        public var a: Int?
        public var b: Int?
    }

    public var a: String
    public var b: String
    /// Runs on each side (1 for a run directory, N for a repeat directory).
    public var aRuns: Int
    public var bRuns: Int
    public var maxRegression: Double
    public var rules: ComparisonRules
    public var latency: [LatencyRow]
    public var verdicts: [VerdictRow]
    public var counts: [CountRow]
    public var regressed: Bool
    /// Latency growth the comparison would have called a regression, left unjudged because a run on
    /// either side was measured on a busy machine (its generator saturated, or other processes
    /// taking its CPU, for more than a tenth of the run): what it says instead. Empty otherwise.
    /// With no regression, a non-empty list makes the comparison inconclusive (exit 3).
    public var unjudged: [String] = []

    public static let stats = ["p50", "p90", "p99", "max"]

    /// One run against one run, with the default rules and this relative limit.
    public init(a: (path: String, summary: RunSummary), b: (path: String, summary: RunSummary), maxRegression: Double) {
        self.init(
            a: ComparisonSide(path: a.path, summary: a.summary), b: ComparisonSide(path: b.path, summary: b.summary),
            rules: ComparisonRules(maxRegression: maxRegression))
    }

    public init(a sideA: ComparisonSide, b sideB: ComparisonSide, rules: ComparisonRules) {
        a = sideA.path
        b = sideB.path
        aRuns = sideA.runs.count
        bRuns = sideB.runs.count
        maxRegression = rules.maxRegression
        self.rules = rules
        latency = Self.latencyRows(sideA.runs, sideB.runs, rules: rules)
        // A slower figure from a run on a busy machine may be the machine's: shown, not judged.
        let busy =
            sideA.runs.enumerated().compactMap { i, r in
                r.busyMachine().map { "A\(sideA.runs.count > 1 ? " run \(i + 1) (seed \(r.seed))" : ""): \($0)" }
            }
            + sideB.runs.enumerated().compactMap { i, r in
                r.busyMachine().map { "B\(sideB.runs.count > 1 ? " run \(i + 1) (seed \(r.seed))" : ""): \($0)" }
            }
        // Users on a timer grid (`live.timer-grid`) reach the server in bunches: a different load,
        // whose latency is not the build's to answer for.
        let gridsA = Set(sideA.runs.map { $0.timerGridMs ?? 0 }), gridsB = Set(sideB.runs.map { $0.timerGridMs ?? 0 })
        func named(_ steps: Set<Int>) -> String {
            steps.sorted().map { $0 == 0 ? "no timer grid" : "a \($0) ms timer grid" }.joined(separator: " and ")
        }
        let gridReason =
            gridsA == gridsB
            ? []
            : [
                "A ran with \(named(gridsA)), B with \(named(gridsB)) (live.timer-grid): their users reached the server differently bunched"
            ]
        let reasons = busy + gridReason
        if !reasons.isEmpty {
            let why = [
                busy.isEmpty ? nil : "a run was measured on a busy machine",
                gridReason.isEmpty ? nil : "the runs' timer grids differ",
            ]
            .compactMap { $0 }.joined(separator: ", and ")
            for i in latency.indices where latency[i].regressed {
                latency[i].regressed = false
                latency[i].judged = false
                latency[i].note = "would regress; not judged: \(why)"
            }
            if latency.contains(where: { $0.note.hasPrefix("would regress") }) { unjudged = reasons }
        }
        verdicts = Self.verdictRows(sideA.runs, sideB.runs)
        let names = Set(sideA.runs.flatMap(\.counts.keys)).union(sideB.runs.flatMap(\.counts.keys)).sorted()
        counts = names.map { name in
            func mid(_ runs: [RunSummary]) -> Int? {
                runs.compactMap { $0.counts[name].map(Double.init) }.median.map { Int($0.rounded()) }
            }
            return CountRow(name: name, a: mid(sideA.runs), b: mid(sideB.runs))
        }
        regressed = latency.contains(where: \.regressed) || verdicts.contains(where: \.worse)
    }

    // MARK: latency

    static func latencyRows(_ runsA: [RunSummary], _ runsB: [RunSummary], rules: ComparisonRules) -> [LatencyRow] {
        let metrics = Set(runsA.flatMap(\.latency.keys)).union(runsB.flatMap(\.latency.keys)).sorted()
        return metrics.flatMap { metric -> [LatencyRow] in
            let la = runsA.compactMap { $0.latency[metric] }, lb = runsB.compactMap { $0.latency[metric] }
            let units = Set((la + lb).map(\.unit))
            let sameUnit = units.count <= 1
            let unit = sameUnit ? (units.first ?? "") : units.sorted().joined(separator: " vs ")
            // A run without the metric has no samples of it.
            let samples = (la.count < runsA.count || lb.count < runsB.count) ? 0 : (la + lb).map(\.count).min() ?? 0
            return Self.stats.map { stat in
                let va = la.compactMap { value($0, stat) }, vb = lb.compactMap { value($0, stat) }
                let x = va.max(), y = vb.median
                var change: Double?
                if sameUnit, let x, let y { change = x > 0 ? (y - x) / x : (y > 0 ? .infinity : nil) }
                var row = LatencyRow(
                    metric: metric, stat: stat, unit: unit, a: x, b: y,
                    aRuns: runsA.count > 1 ? va : nil, bRuns: runsB.count > 1 ? vb : nil,
                    samples: samples, change: change, judged: false, note: "", regressed: false)
                judge(&row, sameUnit: sameUnit, rules: rules)
                return row
            }
        }
    }

    /// Applies the rules to one row: whether it is judged, whether it regressed, and why not.
    static func judge(_ row: inout LatencyRow, sameUnit: Bool, rules: ComparisonRules) {
        guard let p = ComparisonRules.percentile(row.stat) else {
            row.note = "shown, not judged (one sample)"
            return
        }
        let needed = rules.minimumSamples(percentile: p)
        guard row.samples >= needed else {
            row.note = "not judged: \(row.samples) samples < \(needed)"
            return
        }
        guard sameUnit else { row.note = "not judged: units differ"; return }
        guard let x = row.a, let y = row.b else { row.note = "not judged: one side has no value"; return }
        row.judged = true
        let growth = y - x
        let allowed = rules.allowance(over: x)
        if growth > allowed {
            row.regressed = true
            return
        }
        if growth > rules.maxRegression * abs(x), growth > 0 {
            row.note =
                growth <= rules.floor
                ? "+\(figure2(growth)) \(row.unit): within the \(figure2(rules.floor)) \(row.unit) floor"
                : "+\(figure2(growth)) \(row.unit): within histogram precision"
        }
    }

    static func value(_ l: RunSummary.Latency, _ stat: String) -> Double? {
        switch stat {
        case "p50": l.p50
        case "p90": l.p90
        case "p99": l.p99
        default: l.max
        }
    }

    // MARK: verdicts and thresholds

    static func verdictRows(_ runsA: [RunSummary], _ runsB: [RunSummary]) -> [VerdictRow] {
        // A side's verdict is its worst run's: one run that violated correctness is enough.
        func worst(_ verdicts: [String]) -> String? { verdicts.max { VerdictRank.rank($0) < VerdictRank.rank($1) } }
        func worse(_ x: String?, _ y: String?) -> Bool {
            x != nil && y != nil && VerdictRank.rank(y!) > VerdictRank.rank(x!)
        }
        let va = worst(runsA.map(\.verdict)), vb = worst(runsB.map(\.verdict))
        var rows = [VerdictRow(name: "verdict", a: va, b: vb, worse: worse(va, vb))]
        for name in Set(runsA.flatMap(\.checkers.keys)).union(runsB.flatMap(\.checkers.keys)).sorted() {
            let x = worst(runsA.compactMap { $0.checkers[name] }), y = worst(runsB.compactMap { $0.checkers[name] })
            rows.append(VerdictRow(name: "checker \(name)", a: x, b: y, worse: worse(x, y)))
        }
        // Thresholds are keyed by their expression; a live run's text also carries the measured
        // value ("op_ack.p99 < 250ms (measured 371.45ms)"), shown beside met / breached.
        let ta = runsA.map(thresholdOutcomes), tb = runsB.map(thresholdOutcomes)
        let keys = Set(ta.flatMap(\.keys)).union(tb.flatMap(\.keys)).sorted()
        for key in keys {
            let oa = ta.compactMap { $0[key] }, ob = tb.compactMap { $0[key] }
            rows.append(
                VerdictRow(
                    name: "threshold \(key)", a: describe(oa), b: describe(ob),
                    worse: !oa.isEmpty && !ob.isEmpty && !mostlyBreached(oa) && mostlyBreached(ob)))
        }
        return rows
    }

    struct Outcome { var met: Bool; var measured: String? }

    /// More than half of a side's runs breached it (a single run: it breached).
    static func mostlyBreached(_ outcomes: [Outcome]) -> Bool { outcomes.filter { !$0.met }.count * 2 > outcomes.count }

    static func describe(_ outcomes: [Outcome]) -> String? {
        guard !outcomes.isEmpty else { return nil }
        if outcomes.count == 1 {
            let o = outcomes[0]
            return (o.met ? "met" : "breached") + (o.measured.map { " (\($0))" } ?? "")
        }
        return "\(outcomes.filter(\.met).count)/\(outcomes.count) met"
    }

    static func thresholdOutcomes(_ s: RunSummary) -> [String: Outcome] {
        var out: [String: Outcome] = [:]
        for t in s.thresholds {
            let (key, measured) = thresholdKey(t.threshold)
            let previous = out[key]
            out[key] = Outcome(met: (previous?.met ?? true) && t.met, measured: previous?.measured ?? measured)
        }
        return out
    }

    /// "op_ack.p99 < 250ms (measured 371.45ms)" → ("op_ack.p99 < 250ms", "371.45ms");
    /// "… (no samples)" → (…, "no samples"); anything else is its own key.
    public static func thresholdKey(_ text: String) -> (key: String, measured: String?) {
        guard text.hasSuffix(")"), let open = text.range(of: " (", options: .backwards) else { return (text, nil) }
        let inside = String(text[open.upperBound..<text.index(before: text.endIndex)])
        if inside.hasPrefix("measured ") {
            return (String(text[..<open.lowerBound]), String(inside.dropFirst("measured ".count)))
        }
        if inside == "no samples" { return (String(text[..<open.lowerBound]), inside) }
        return (text, nil)
    }

    // MARK: rendering

    /// "+12.5 %", "−3.0 %", "from 0", or "" when there is nothing to compare.
    static func percent(_ change: Double?) -> String {
        guard let change else { return "" }
        if change.isInfinite { return "from 0" }
        return (change > 0 ? "+" : change < 0 ? "−" : "±") + String(format: "%.1f %%", abs(change) * 100)
    }

    /// Two decimals, trailing zeros dropped: 2, 2.5, 12.25.
    static func figure2(_ v: Double?) -> String {
        guard let v else { return "–" }
        var s = String(format: "%.2f", v)
        while s.hasSuffix("0") { s.removeLast() }
        if s.hasSuffix(".") { s.removeLast() }
        return s
    }

    var sideWords: (a: String, b: String) {
        (aRuns > 1 ? "A worst of \(aRuns)" : "A", bRuns > 1 ? "B median of \(bRuns)" : "B")
    }

    var summaryLine: String {
        let limit = String(format: "%.1f", maxRegression * 100)
        let outcome =
            regressed
            ? "B regressed against A"
            : !unjudged.isEmpty
                ? "inconclusive: latency grew, but " + unjudged.joined(separator: "; ") : "no regression"
        return outcome + " (max regression \(limit) %, floor \(Self.figure2(rules.floor)))"
    }

    func status(_ r: LatencyRow) -> String {
        r.regressed ? "REGRESSED" : r.note.isEmpty ? (r.judged ? "ok" : "") : r.note
    }

    /// The side-by-side table for the terminal; every column is as wide as its widest cell.
    public func table() -> String {
        func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s : s + String(repeating: " ", count: n - s.count) }
        func lpad(_ s: String, _ n: Int) -> String { s.count >= n ? s : String(repeating: " ", count: n - s.count) + s }
        func render(_ rows: [[String]], right: Set<Int>) -> String {
            let widths = rows[0].indices.map { i in rows.map { $0[i].count }.max() ?? 0 }
            return rows.map { row in
                row.indices.map { i in right.contains(i) ? lpad(row[i], widths[i]) : pad(row[i], widths[i]) }.joined(
                    separator: "  "
                ).replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
            }.joined(separator: "\n") + "\n"
        }
        let words = sideWords
        var out = "A: \(a)\(aRuns > 1 ? " (\(aRuns) runs)" : "")\nB: \(b)\(bRuns > 1 ? " (\(bRuns) runs)" : "")\n\n"
        var rows = [["latency", words.a, words.b, "change", "n", "judgement"]]
        for r in latency {
            rows.append([
                "\(r.metric) \(r.stat) (\(r.unit))", Self.figure2(r.a), Self.figure2(r.b), Self.percent(r.change),
                "\(r.samples)", status(r),
            ])
        }
        out += render(rows, right: [1, 2, 3, 4])
        var vrows = [
            ["verdicts", aRuns > 1 ? "A (\(aRuns) runs)" : "A", "", bRuns > 1 ? "B (\(bRuns) runs)" : "B", ""]
        ]
        for r in verdicts { vrows.append([r.name, r.a ?? "–", "→", r.b ?? "–", r.worse ? "WORSE" : ""]) }
        out += "\n" + render(vrows, right: [])
        var crows = [["counts", aRuns > 1 ? "A median" : "A", bRuns > 1 ? "B median" : "B"]]
        for r in counts { crows.append([r.name, r.a.map(String.init) ?? "–", r.b.map(String.init) ?? "–"]) }
        out += "\n" + render(crows, right: [1, 2])
        out += "\n\(summaryLine)\nrules: \(rules.description)\n"
        return out
    }

    public func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // JSON has no infinity: a latency that grew from 0 is written as null.
        var copy = self
        for i in copy.latency.indices where copy.latency[i].change?.isInfinite == true { copy.latency[i].change = nil }
        return try encoder.encode(copy) + Data("\n".utf8)
    }

    /// `compare.html`: the same tables as one self-contained page.
    public func html() -> String {
        let words = sideWords
        var out =
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"color-scheme\" content=\"light dark\"><title>whalesim: compare</title><style>\(ReportStyle.css)</style></head><body>\n"
        out +=
            "<h1>Run comparison</h1>\n<p>A: <code>\(WhaleReports.html(a))</code>\(aRuns > 1 ? " (\(aRuns) runs)" : "")<br>B: <code>\(WhaleReports.html(b))</code>\(bRuns > 1 ? " (\(bRuns) runs)" : "")</p>\n"
        let badge =
            regressed
            ? ("invalid", "regressed") : !unjudged.isEmpty ? ("unknown", "inconclusive") : ("valid", "no regression")
        out +=
            "<p class=\"verdict\"><span class=\"badge \(badge.0)\">\(badge.1)</span> \(WhaleReports.html(summaryLine))</p>\n"
        out += "<p>\(WhaleReports.html(rules.description))</p>\n"
        out +=
            "<h2>Latency</h2>\n<table><tr><th>metric</th><th>stat</th><th>unit</th><th class=\"num\">\(words.a)</th><th class=\"num\">\(words.b)</th><th class=\"num\">change</th><th class=\"num\">samples</th><th>judgement</th></tr>\n"
        for r in latency {
            var parts: [String] = []
            if let v = r.aRuns { parts.append("A runs: " + v.map { Self.figure2($0) }.joined(separator: ", ")) }
            if let v = r.bRuns { parts.append("B runs: " + v.map { Self.figure2($0) }.joined(separator: ", ")) }
            let runs = parts.joined(separator: "; ")
            out +=
                "<tr><td>\(WhaleReports.html(r.metric))</td><td>\(r.stat)</td><td>\(WhaleReports.html(r.unit))</td><td class=\"num\">\(Self.figure2(r.a))</td><td class=\"num\">\(Self.figure2(r.b))</td>"
            out +=
                "<td class=\"num\(r.regressed ? " invalid" : "")\">\(Self.percent(r.change))</td><td class=\"num\">\(r.samples)</td><td\(r.regressed ? " class=\"invalid\"" : "")\(runs.isEmpty ? "" : " title=\"\(WhaleReports.html(runs))\"")>\(WhaleReports.html(status(r)))</td></tr>\n"
        }
        out += "</table>\n<h2>Verdicts</h2>\n<table><tr><th>what</th><th>A</th><th>B</th></tr>\n"
        for r in verdicts {
            out +=
                "<tr><td>\(WhaleReports.html(r.name))</td><td>\(WhaleReports.html(r.a ?? "–"))</td><td class=\"\(r.worse ? "invalid" : "")\">\(WhaleReports.html(r.b ?? "–"))\(r.worse ? " (worse)" : "")</td></tr>\n"
        }
        out +=
            "</table>\n<h2>Counts</h2>\n<table><tr><th>count</th><th class=\"num\">\(aRuns > 1 ? "A median" : "A")</th><th class=\"num\">\(bRuns > 1 ? "B median" : "B")</th></tr>\n"
        for r in counts {
            out +=
                "<tr><td>\(WhaleReports.html(r.name))</td><td class=\"num\">\(r.a.map(String.init) ?? "–")</td><td class=\"num\">\(r.b.map(String.init) ?? "–")</td></tr>\n"
        }
        return out + "</table>\n</body></html>\n"
    }
}
