/// `report.html`: one self-contained page (inline CSS and SVG, no script, nothing fetched)
/// for one run. Verdicts first, then latency, throughput, clients and errors over time with
/// fault windows shaded, per-document convergence, the fake Salesforce summary, the run's
/// options and counts, and for a failure the (shrunk) history as a timeline per client.
///
/// Everything from the record is HTML-escaped; big runs are bounded by ``Limits``.
public struct ReportHTML {
    /// Caps that keep a big run's page small (well under 5 MB); each cut is said on the page.
    public struct Limits: Sendable {
        public var timelineRows = 2_000
        public var evidenceLines = 50
        public var tableRows = 500
        public init() {}
    }

    public var run: RunDirectory
    public var series: RunSeries
    public var limits: Limits

    public init(run: RunDirectory, series: RunSeries, limits: Limits = Limits()) {
        self.run = run
        self.series = series
        self.limits = limits
    }

    public func render() -> String {
        let r = run.record
        var page = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
            <meta name="color-scheme" content="light dark">
            <title>whalesim: \(html(r.scenario)) seed \(r.seed): \(html(r.verdict))</title>
            <style>\(ReportStyle.css)</style></head><body>

            """
        page += header()
        page += verdictsSection()
        page += ReproducerSection(reproducer: run.reproducer, maxSteps: limits.evidenceLines).render()
        page += latencySection()
        page += activitySection()
        page += ConvergenceTable(run: run, maxRows: limits.tableRows).render()
        page += replaySection()
        page += salesforceSection()
        page += runSection()
        if r.verdict != "valid" { page += Timeline(run: run, maxRows: limits.timelineRows).render() }
        page +=
            "<p class=\"meta\">whalesim \(html(r.whalesimVersion)) · run record schema \(r.schemaVersion) · history \(html(r.historyHash))</p>\n</body></html>\n"
        return page
    }

    func header() -> String {
        let r = run.record
        var out = "<header><h1>\(html(r.scenario)) <span class=\"meta\">seed \(r.seed)</span></h1>\n"
        out += "<p class=\"verdict\">verdict <span class=\"badge \(html(r.verdict))\">\(html(r.verdict))</span>"
        let met = r.thresholds.filter(\.met).count
        if !r.thresholds.isEmpty { out += " · thresholds \(met)/\(r.thresholds.count) met" }
        out += "</p>\n"
        // A failed run says first what its server behaves like, when the reproducer could tell.
        if let d = run.reproducer?.diagnosis {
            out +=
                "<p class=\"diagnosis\"><strong>Diagnosis:</strong> \(html(d.sentence)) (<a href=\"#reproducer\">reproducer</a>)</p>\n"
        }
        if let signal = r.interrupted {
            out +=
                "<p class=\"interrupted\"><strong>interrupted</strong> by \(html(signal)): the load was cut short; what was recorded is judged, and what could not be finished is unknown</p>\n"
        }
        if let started = r.startedAt {
            out += "<p class=\"meta\">started <time class=\"started\">\(html(started))</time>"
            if let wall = r.wallSeconds {
                out += " · took <span class=\"wall\">\(figure((wall * 10).rounded() / 10)) s</span>"
            }
            out += " · time in \(html(r.unit))</p>\n"
        }
        out += "<p>replay: <code>\(html(r.replayCommand))</code></p>\n"
        if let s = r.shrunk {
            out +=
                "<p>shrunk replay (\(s.clients) clients, \(s.ops) ops, \(s.runs) runs): <code>\(html(s.replayCommand))</code></p>\n"
        }
        return out + "</header>\n"
    }

    func verdictsSection() -> String {
        let r = run.record
        var out =
            "<section id=\"verdicts\"><h2>Checkers</h2>\n<table><tr><th>checker</th><th>verdict</th><th>evidence</th></tr>\n"
        for v in r.verdicts {
            out +=
                "<tr><td>\(html(v.checker))</td><td><span class=\"badge \(html(v.verdict))\">\(html(v.verdict))</span></td><td>"
            out += evidenceList(v.evidence)
            out += "</td></tr>\n"
        }
        out += "</table>\n"
        if !r.thresholds.isEmpty {
            out += "<h3>Thresholds</h3>\n<table><tr><th>threshold</th><th>outcome</th></tr>\n"
            for t in r.thresholds {
                let (badge, word) =
                    t.unknown != nil ? ("unknown", "unknown") : t.met ? ("valid", "met") : ("invalid", "breached")
                out +=
                    "<tr><td><code>\(html(t.threshold))</code></td><td><span class=\"badge \(badge)\">\(word)</span>\(t.unknown.map { " <span class=\"note\">\(html($0))</span>" } ?? "")</td></tr>\n"
            }
            out += "</table>\n"
        }
        return out + "</section>\n"
    }

    func evidenceList(_ lines: [String]) -> String {
        guard !lines.isEmpty else { return "" }
        var out = "<ul class=\"evidence\">"
        for line in lines.prefix(limits.evidenceLines) { out += "<li>\(html(line))</li>" }
        if lines.count > limits.evidenceLines {
            out += "<li class=\"note\">\(lines.count - limits.evidenceLines) more lines not shown</li>"
        }
        return out + "</ul>"
    }

    static let latencyNames: [(key: String, title: String)] = [
        ("op_ack", "op → ack"), ("op_remote_apply", "op → remote apply"), ("graphql", "GraphQL"), ("soql", "SOQL"),
    ]
    /// Charted only when the run measured them (live runs): ops whose ack crossed their own
    /// client's drop, kept apart from `op_ack`, and the load generator's own scheduling lag.
    static let liveLatencyNames: [(key: String, title: String)] = [
        ("op_ack_resent", "op → ack, acknowledged after the client's own redial"),
        ("op_remote_apply_resent", "op → remote apply, of ops resent after a redial"),
        ("runner_lag", "runner lag (how late whalesim's own timers and event loops ran)"),
    ]

    func latencySection() -> String {
        var out = "<section id=\"latency\"><h2>Latency percentiles over time</h2>\n"
        let present = Self.liveLatencyNames.filter { (series.latency[$0.key]?.overall.count ?? 0) > 0 }
        for (key, title) in Self.latencyNames + present {
            out += "<h3>\(html(title))</h3>\n"
            guard let s = series.latency[key], s.overall.count > 0 else {
                out +=
                    "<p class=\"note\">no \(html(title)) samples in this run\(series.unit == "ticks" && (key == "graphql" || key == "soql") ? " (the simulator has no GraphQL or SOQL traffic)" : "")</p>\n"
                continue
            }
            let o = s.overall
            out +=
                "<p class=\"mono\">\(o.count) samples · p50 \(figure(o.p50)) · p90 \(figure(o.p90)) · p99 \(figure(o.p99)) · max \(figure(o.max)) \(html(series.unit))</p>\n"
            let chart = LineChart(
                title: "\(title) latency", yLabel: "latency (\(series.unit))", series: series,
                lines: [
                    .init(name: "p50", values: s.p50), .init(name: "p90", values: s.p90),
                    .init(name: "p99", values: s.p99), .init(name: "max", values: s.max),
                ], logScale: true)
            out += chart.render() + "\n" + chart.legend() + "\n"
        }
        return out + "</section>\n"
    }

    func activitySection() -> String {
        let per = "per \(series.bucketWidth) \(series.unit)"
        var out = "<section id=\"activity\"><h2>Throughput, clients and errors</h2>\n<h3>Ops \(html(per))</h3>\n"
        let throughput = LineChart(
            title: "ops over time", yLabel: "ops \(per)", series: series,
            lines: series.counters.keys.sorted().map {
                .init(name: $0.replacingOccurrences(of: "_", with: " "), values: series.counters[$0]!.map(Double.init))
            })
        out += throughput.render() + "\n" + throughput.legend() + "\n<h3>Connected clients</h3>\n"
        let clients = LineChart(
            title: "connected clients", yLabel: "clients", series: series,
            lines: [
                .init(name: "connected", values: series.connected.map(Double.init))
            ])
        out += clients.render() + "\n" + clients.legend() + "\n"
        if let m = series.machine { out += machineCharts(m) }
        out += "<h3>Errors by kind</h3>\n"
        if series.errors.isEmpty {
            out += "<p class=\"note\">no errors in this run</p>\n"
        } else {
            let kinds = series.errors.keys.sorted()
            let errors = LineChart(
                title: "errors by kind", yLabel: "errors \(per)", series: series,
                lines: kinds.map {
                    .init(name: $0, values: series.errors[$0]!.map(Double.init))
                })
            out +=
                errors.render() + "\n" + errors.legend()
                + "\n<table><tr><th>kind</th><th class=\"num\">count</th></tr>\n"
            for k in kinds {
                out += "<tr><td>\(html(k))</td><td class=\"num\">\(series.errors[k]!.reduce(0, +))</td></tr>\n"
            }
            out += "</table>\n"
        }
        if !series.faultWindows.isEmpty {
            out +=
                "<h3>Fault windows</h3>\n<table><tr><th>fault</th><th class=\"num\">from</th><th class=\"num\">to</th></tr>\n"
            for w in series.faultWindows.prefix(limits.tableRows) {
                out +=
                    "<tr><td>\(html(w.label))</td><td class=\"num\">\(w.start)</td><td class=\"num\">\(w.end)</td></tr>\n"
            }
            out += "</table>\n"
            if series.faultWindows.count > limits.tableRows {
                out +=
                    "<p class=\"note\">\(series.faultWindows.count - limits.tableRows) more fault windows not listed</p>\n"
            }
        }
        return out + "</section>\n"
    }

    /// The runner's machine: CPU busy and CPU other processes took, in cores, and CPU pressure;
    /// `contended` seconds are shaded (the judge leaves them out of a breached latency threshold).
    func machineCharts(_ m: MachineSeries) -> String {
        var out = "<h3>The runner's machine (\(m.cores) cores)</h3>\n"
        if let bound = m.foreignBound {
            out +=
                "<p class=\"note\">A second is contended (shaded) when other processes used at least \(figure(bound)) of a core while at least \(Int(m.busyBound * 100))% of all cores were busy: the server may have been starved then, so a latency breached only in those seconds is not blamed on it.</p>\n"
        } else {
            out +=
                "<p class=\"note\">This run judged every latency breach as the server's, however busy the machine was (foreign-cpu-bound: off).</p>\n"
        }
        let cpu = LineChart(
            title: "machine CPU", yLabel: "cores", series: series,
            lines: [
                .init(name: "busy", values: m.busy.map { $0.map { $0 * Double(m.cores) } }),
                .init(name: "other processes", values: m.foreign),
            ])
        out += cpu.render() + "\n" + cpu.legend() + "\n"
        if m.pressure.contains(where: { $0 != nil }) {
            let pressure = LineChart(
                title: "CPU pressure", yLabel: "% of time a task waited for a CPU", series: series,
                lines: [
                    .init(name: "some", values: m.pressure.map { $0.map { $0 * 100 } })
                ])
            out += pressure.render() + "\n" + pressure.legend() + "\n"
        }
        return out
    }

    /// A replay workload: the recorded request mix beside the replayed one, kind by kind, and
    /// what was not replayed, with why.
    func replaySection() -> String {
        guard let m = run.record.replay else { return "" }
        var out = "<section id=\"replay\"><h2>Replayed sessions</h2>\n"
        out +=
            "<p>\(m.users) users played \(m.sessions) recorded session\(m.sessions == 1 ? "" : "s") of <code>\(html(m.file))</code> at \(m.speed)× speed</p>\n"
        out +=
            "<table><thead><tr><th>request kind</th><th>recorded</th><th>expected</th><th>replayed</th><th>recorded p50</th><th>replayed p50</th><th>not replayed, or failed</th></tr></thead><tbody>\n"
        for k in m.kinds {
            let ms = { (v: Int?) in v.map { "\($0) ms" } ?? "" }
            var why = k.notReplayed ?? ""
            if let failed = k.failed, failed > 0 {
                why += "\(why.isEmpty ? "" : "; ")\(failed) failed: \(k.lastFailure ?? "")"
            }
            let mark = k.replayed == k.expected ? "" : " class=\"differs\""
            out +=
                "<tr\(mark)><td><code>\(html(k.kind))</code></td><td>\(k.recorded)</td><td>\(k.expected)</td><td>\(k.replayed)</td><td>\(ms(k.recordedP50Ms))</td><td>\(ms(k.replayedP50Ms))</td><td>\(html(why))</td></tr>\n"
        }
        return out + "</tbody></table></section>\n"
    }

    func salesforceSection() -> String {
        var out = "<section id=\"salesforce\"><h2>Fake Salesforce requests</h2>\n"
        guard let sf = run.record.salesforce, sf.requests > 0 else {
            return out + "<p class=\"note\">no Salesforce traffic in this run</p>\n</section>\n"
        }
        out +=
            "<p>\(sf.requests) requests, \(sf.errors) errors</p>\n<table><tr><th>endpoint</th><th class=\"num\">requests</th><th class=\"num\">errors</th><th class=\"num\">p50 (\(html(sf.unit)))</th><th class=\"num\">p99 (\(html(sf.unit)))</th></tr>\n"
        for e in sf.endpoints.prefix(limits.tableRows) {
            out +=
                "<tr><td><code>\(html(e.endpoint))</code></td><td class=\"num\">\(e.requests)</td><td class=\"num\">\(e.errors)</td><td class=\"num\">\(figure(e.p50))</td><td class=\"num\">\(figure(e.p99))</td></tr>\n"
        }
        return out + "</table>\n</section>\n"
    }

    func runSection() -> String {
        let r = run.record
        var out = "<section id=\"run\"><h2>Scenario and counts</h2>\n<table><tr><th>option</th><th>value</th></tr>\n"
        out += "<tr><td>scenario</td><td>\(html(r.scenario))</td></tr>\n<tr><td>seed</td><td>\(r.seed)</td></tr>\n"
        for key in r.options.keys.sorted() {
            out += "<tr><td>\(html(key))</td><td>\(html(r.options[key]!.description))</td></tr>\n"
        }
        out += "</table>\n<table><tr><th>count</th><th class=\"num\">value</th></tr>\n"
        for key in r.counts.keys.sorted() {
            out += "<tr><td>\(html(key))</td><td class=\"num\">\(r.counts[key]!)</td></tr>\n"
        }
        return out + "</table>\n</section>\n"
    }
}
