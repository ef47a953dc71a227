/// The report's "Simulator reproducer" section: whether the run's violation fails the same way
/// in a scripted simulation, links to the reproducer files, both replay commands, and the shrunk
/// script as the history to read first. Empty when the run directory has no `reproducer.json`.
struct ReproducerSection {
    var reproducer: ReproducerFile?
    var maxSteps: Int

    func render() -> String {
        guard let r = reproducer else { return "" }
        var out = "<section id=\"reproducer\"><h2>Simulator reproducer</h2>\n"
        let badge = r.status == "reproduced" ? "valid" : "unknown"
        out +=
            "<p>\(html(r.note)), \(html(r.checker)) invalid: <span class=\"badge \(badge)\">\(html(r.status))</span> in simulation"
        out += " · server order \(html(r.serverOrder))</p>\n"
        out += "<p>live replay: <code>\(html(r.liveReplay))</code></p>\n"
        if r.status != "not reproduced" {
            out +=
                "<p>simulated replay (<a href=\"\(html(r.reproducer))\">\(html(r.reproducer))</a>): <code>\(html(r.replay))</code></p>\n"
        }
        if let d = r.diagnosis { out += diagnosis(d) }
        for note in r.notes { out += "<p class=\"meta\">\(html(note))</p>\n" }
        if let s = r.shrunk {
            out += "<p>shrunk (\(s.runs) runs) to \(s.clients) clients, \(s.steps) steps, \(s.edits) edits "
            out += "(<a href=\"\(html(s.file))\">\(html(s.file))</a>): <code>\(html(s.replay))</code></p>\n"
            out += "<h3>Shrunk history</h3>\n<ol class=\"script\">\n"
            for line in s.script.prefix(maxSteps) { out += "<li><code>\(html(line))</code></li>\n" }
            out += "</ol>\n"
            if s.script.count > maxSteps {
                out += "<p class=\"meta\">… \(s.script.count - maxSteps) more steps, in the file</p>\n"
            }
            if !s.evidence.isEmpty {
                out += "<p>the shrunk run's evidence:</p>\n<ul>\n"
                for line in s.evidence.prefix(maxSteps) { out += "<li>\(html(line))</li>\n" }
                out += "</ul>\n"
            }
        }
        return out + "</section>\n"
    }

    /// The diagnosis: the sentence, each fault set that reproduces or was ruled out, and the
    /// conformance commands that isolate the named fault.
    func diagnosis(_ d: ReproducerFile.Diagnosis) -> String {
        var out = "<h3>Diagnosis</h3>\n<p><strong>\(html(d.sentence))</strong>"
        out += " · the defect sits on the \(html(d.side))'s side"
        out +=
            " · \(d.tried.count) fault set\(d.tried.count == 1 ? "" : "s") tried in \(String(format: "%.1f", d.seconds)) s"
        if let stopped = d.stopped { out += " · stopped: \(html(stopped))" }
        out += "</p>\n<ul>\n"
        for m in d.matches {
            out +=
                "<li>reproduces: <code>\(html(m.faults.joined(separator: " + ")))</code> (\(html(m.summaries.joined(separator: "; ")))): \(m.checkersAgreeing)/\(m.checkersCompared) checkers agree with the live verdicts, \(m.claimsMatched) live evidence claim(s) repeated, \(m.applies) ops applied (live \(d.liveApplies))</li>\n"
        }
        for r in d.ruledOut {
            out +=
                "<li>ruled out: <code>\(html(r.faults.joined(separator: " + ")))</code>: it also shows \(html(r.why))</li>\n"
        }
        for n in d.notTried { out += "<li>not tried: <code>\(html(n.fault))</code>: \(html(n.reason))</li>\n" }
        if let live = d.liveServerOnly, !live.isEmpty {
            out +=
                "<li>not tried, only a live server shows them (<code>whalesim conform</code> checks them): \(live.map { "<code>\(html($0))</code>" }.joined(separator: ", "))</li>\n"
        }
        out += "</ul>\n"
        for c in d.conform { out += "<p>isolate it: <code>\(html(c))</code></p>\n" }
        return out
    }
}
