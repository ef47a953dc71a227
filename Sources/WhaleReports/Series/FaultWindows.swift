/// Fault windows read from a simulator history: a partition from "partition cuts off …" to
/// "partition of … heals", a slow link from "cNN link Kx slower" to "… back to normal speed",
/// the server from `serverCrash` to `serverRestart`, a nemesis disconnect until the client's
/// next `connect`, a catalog fault's window (kind: the fault's name) from "fault F on" to "fault F off".
/// `heal` ends whatever is still open; so does the end of the history.
enum FaultWindows {
    static func derive(_ history: [HistoryLine], end: Int) -> [FaultWindow] {
        var open: [String: (kind: String, start: Int)] = [:]
        var windows: [FaultWindow] = []
        func begin(_ key: String, _ kind: String, _ t: Int) { if open[key] == nil { open[key] = (kind, t) } }
        func close(_ key: String, _ t: Int) {
            if let o = open.removeValue(forKey: key) {
                windows.append(FaultWindow(kind: o.kind, label: key, start: o.start, end: max(t, o.start)))
            }
        }
        for line in history {
            switch line.type {
            case "note":
                let text = line.string("text") ?? ""
                if text.hasPrefix("partition cuts off ") {
                    begin("partition " + text.dropFirst("partition cuts off ".count), "partition", line.t)
                } else if text.hasPrefix("partition of "), text.hasSuffix(" heals") {
                    close("partition " + text.dropFirst("partition of ".count).dropLast(" heals".count), line.t)
                } else if let r = text.range(of: " link "), text.hasSuffix("x slower") {
                    begin("slow " + text[..<r.lowerBound], "slow-client", line.t)
                } else if let r = text.range(of: " link back to normal speed") {
                    close("slow " + text[..<r.lowerBound], line.t)
                } else if text.hasPrefix("fault "), text.hasSuffix(" on") {
                    let name = String(text.dropFirst("fault ".count).dropLast(" on".count))
                    begin("fault " + name, name, line.t)
                } else if text.hasPrefix("fault "), text.hasSuffix(" off") {
                    close("fault " + text.dropFirst("fault ".count).dropLast(" off".count), line.t)
                }
            case "serverCrash": begin("server down", "server-restart", line.t)
            case "serverRestart": close("server down", line.t)
            case "disconnect" where line.string("cause") == "nemesis":
                if let c = line.client { begin("disconnect " + c, "disconnect", line.t) }
            case "connect":
                if let c = line.client { close("disconnect " + c, line.t) }
            case "heal":
                for key in open.keys.sorted() { close(key, line.t) }
            default: break
            }
        }
        for key in open.keys.sorted() { close(key, end) }
        return windows.sorted { ($0.start, $0.end, $0.label) < ($1.start, $1.end, $1.label) }
    }
}
