import Foundation

/// Two runs side by side for regression tracking (`whalesim report --compare A B`): latency
/// percentile deltas, verdict changes and counts. B regressed when a latency percentile grew
/// by more than `maxRegression` (a fraction: 0.1 is 10 %) over A in the same unit, or when
/// the overall verdict, a checker's verdict or a threshold got worse.
///
/// ```swift
/// let c = RunComparison(a: (pathA, summaryA), b: (pathB, summaryB), maxRegression: 0.1)
/// print(c.table()); exit(c.regressed ? 1 : 0)
/// ```
public struct RunComparison: Codable, Sendable, Equatable {
    public struct LatencyRow: Codable, Sendable, Equatable {
        public var metric: String
        public var stat: String
        public var unit: String
        public var a: Double?
        public var b: Double?
        /// (b − a) / a; nil when either side is missing, the units differ, or a is 0 and b is too.
        public var change: Double?
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
        public var a: Int?
        public var b: Int?
    }

    public var a: String
    public var b: String
    public var maxRegression: Double
    public var latency: [LatencyRow]
    public var verdicts: [VerdictRow]
    public var counts: [CountRow]
    public var regressed: Bool

    public static let stats = ["p50", "p90", "p99", "max"]

    public init(a: (path: String, summary: RunSummary), b: (path: String, summary: RunSummary), maxRegression: Double) {
        self.a = a.path
        self.b = b.path
        self.maxRegression = maxRegression
        let sa = a.summary, sb = b.summary
        latency = Set(sa.latency.keys).union(sb.latency.keys).sorted().flatMap { metric -> [LatencyRow] in
            let la = sa.latency[metric], lb = sb.latency[metric]
            let sameUnit = la == nil || lb == nil || la!.unit == lb!.unit
            return Self.stats.map { stat in
                let x = la.flatMap { Self.value($0, stat) }, y = lb.flatMap { Self.value($0, stat) }
                var change: Double?
                if sameUnit, let x, let y { change = x > 0 ? (y - x) / x : (y > 0 ? .infinity : nil) }
                let unit = sameUnit ? (lb?.unit ?? la?.unit ?? "") : "\(la!.unit) vs \(lb!.unit)"
                return LatencyRow(metric: metric, stat: stat, unit: unit, a: x, b: y, change: change, regressed: (change ?? 0) > maxRegression)
            }
        }
        var rows = [VerdictRow(name: "verdict", a: sa.verdict, b: sb.verdict, worse: VerdictRank.rank(sb.verdict) > VerdictRank.rank(sa.verdict))]
        for name in Set(sa.checkers.keys).union(sb.checkers.keys).sorted() {
            let x = sa.checkers[name], y = sb.checkers[name]
            rows.append(VerdictRow(name: "checker \(name)", a: x, b: y, worse: x != nil && y != nil && VerdictRank.rank(y!) > VerdictRank.rank(x!)))
        }
        let ta = Dictionary(sa.thresholds.map { ($0.threshold, $0.met) }, uniquingKeysWith: { $0 && $1 })
        let tb = Dictionary(sb.thresholds.map { ($0.threshold, $0.met) }, uniquingKeysWith: { $0 && $1 })
        for name in Set(ta.keys).union(tb.keys).sorted() {
            let word = { (met: Bool?) in met.map { $0 ? "met" : "breached" } }
            rows.append(VerdictRow(name: "threshold \(name)", a: word(ta[name]), b: word(tb[name]), worse: ta[name] == true && tb[name] == false))
        }
        verdicts = rows
        counts = Set(sa.counts.keys).union(sb.counts.keys).sorted().map { CountRow(name: $0, a: sa.counts[$0], b: sb.counts[$0]) }
        regressed = latency.contains(where: \.regressed) || verdicts.contains(where: \.worse)
    }

    static func value(_ l: RunSummary.Latency, _ stat: String) -> Double? {
        switch stat {
        case "p50": l.p50
        case "p90": l.p90
        case "p99": l.p99
        default: l.max
        }
    }

    /// "+12.5 %", "−3.0 %", "new", or "" when there is nothing to compare.
    static func percent(_ change: Double?) -> String {
        guard let change else { return "" }
        if change.isInfinite { return "from 0" }
        return (change > 0 ? "+" : change < 0 ? "−" : "±") + String(format: "%.1f %%", abs(change) * 100)
    }

    /// The side-by-side table for the terminal.
    public func table() -> String {
        func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s : s + String(repeating: " ", count: n - s.count) }
        func lpad(_ s: String, _ n: Int) -> String { s.count >= n ? s : String(repeating: " ", count: n - s.count) + s }
        let names = latency.map { "\($0.metric) \($0.stat) (\($0.unit))" }
        let width = max(24, (names.map(\.count).max() ?? 0) + 2)
        var out = "A: \(a)\nB: \(b)\n\n" + pad("latency", width) + lpad("A", 8) + lpad("B", 11) + lpad("change", 11) + "\n"
        for (r, name) in zip(latency, names) {
            out += pad(name, width) + lpad(figure(r.a), 8) + lpad(figure(r.b), 11) + lpad(Self.percent(r.change), 11)
            out += r.regressed ? "  REGRESSED" : ""
            out += "\n"
        }
        out += "\nverdicts\n"
        for r in verdicts {
            out += pad(r.name, 36) + pad(r.a ?? "–", 10) + "→ " + pad(r.b ?? "–", 10) + (r.worse ? "  WORSE" : "") + "\n"
        }
        out += "\n" + pad("counts", width) + lpad("A", 8) + lpad("B", 11) + "\n"
        for r in counts { out += pad(r.name, width) + lpad(r.a.map(String.init) ?? "–", 8) + lpad(r.b.map(String.init) ?? "–", 11) + "\n" }
        out += "\n" + (regressed ? "B regressed against A (max regression \(String(format: "%.1f", maxRegression * 100)) %)" : "no regression (max regression \(String(format: "%.1f", maxRegression * 100)) %)") + "\n"
        return out
    }

    public func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // JSON has no infinity: a latency that grew from 0 is written as null with regressed true.
        var copy = self
        for i in copy.latency.indices where copy.latency[i].change?.isInfinite == true { copy.latency[i].change = nil }
        return try encoder.encode(copy) + Data("\n".utf8)
    }

    /// `compare.html`: the same tables as one self-contained page.
    public func html() -> String {
        var out = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"color-scheme\" content=\"light dark\"><title>whalesim: compare</title><style>\(ReportStyle.css)</style></head><body>\n"
        out += "<h1>Run comparison</h1>\n<p>A: <code>\(WhaleReports.html(a))</code><br>B: <code>\(WhaleReports.html(b))</code></p>\n"
        out += "<p class=\"verdict\"><span class=\"badge \(regressed ? "invalid" : "valid")\">\(regressed ? "regressed" : "no regression")</span> (max regression \(String(format: "%.1f", maxRegression * 100)) %)</p>\n"
        out += "<h2>Latency</h2>\n<table><tr><th>metric</th><th>stat</th><th>unit</th><th class=\"num\">A</th><th class=\"num\">B</th><th class=\"num\">change</th></tr>\n"
        for r in latency {
            out += "<tr><td>\(WhaleReports.html(r.metric))</td><td>\(r.stat)</td><td>\(WhaleReports.html(r.unit))</td><td class=\"num\">\(figure(r.a))</td><td class=\"num\">\(figure(r.b))</td>"
            out += "<td class=\"num\(r.regressed ? " invalid" : "")\">\(Self.percent(r.change))</td></tr>\n"
        }
        out += "</table>\n<h2>Verdicts</h2>\n<table><tr><th>what</th><th>A</th><th>B</th></tr>\n"
        for r in verdicts {
            out += "<tr><td>\(WhaleReports.html(r.name))</td><td>\(WhaleReports.html(r.a ?? "–"))</td><td class=\"\(r.worse ? "invalid" : "")\">\(WhaleReports.html(r.b ?? "–"))\(r.worse ? " (worse)" : "")</td></tr>\n"
        }
        out += "</table>\n<h2>Counts</h2>\n<table><tr><th>count</th><th class=\"num\">A</th><th class=\"num\">B</th></tr>\n"
        for r in counts { out += "<tr><td>\(WhaleReports.html(r.name))</td><td class=\"num\">\(r.a.map(String.init) ?? "–")</td><td class=\"num\">\(r.b.map(String.init) ?? "–")</td></tr>\n" }
        return out + "</table>\n</body></html>\n"
    }
}
