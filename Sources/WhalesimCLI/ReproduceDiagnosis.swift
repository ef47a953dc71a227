import Foundation
import WhaleConform
import WhaleProtocol
import WhaleSim

/// How `reproduce` says what a foreign server behaves like (``FaultDiagnosis``): terminal lines,
/// the `diagnosis` object of `reproducer.json` (which the report and `summary.json` carry), and
/// the conformance cases that isolate each named fault.
enum ReproduceDiagnosis {
    /// The conformance cases that name `fault` as a suspect, as `conform --only` commands
    /// against `server` (the run's `--server`).
    static func conformCommands(_ fault: Fault, server: String?) -> [String] {
        let ids = ConformSuite.cases.filter { $0.suspects.contains(fault) }.map(\.id)
        guard !ids.isEmpty else { return [] }
        var words = ["whalesim", "conform"]
        if let server, server != "embedded" { words += ["--server", server] }
        return [ShellCommand.line(words + ["--only", ids.joined(separator: ",")])]
    }

    /// What the terminal shows after the simulated replay line.
    static func lines(_ d: FaultDiagnosis, server: String?) -> [String] {
        var out = ["  diagnosis: \(d.sentence)"]
        let why =
            d.side == .server
            ? "the run loaded \(server ?? "a server whalesim did not start"); whalesim's virtual clients are its reference clients, so only server-side faults are tried"
            : "whalesim's server was the reference; only client-side faults are tried"
        out.append("    the defect sits on \(d.side.possessive) side: \(why)")
        out.append(
            "    \(d.tried.count) fault set(s) tried in \(String(format: "%.2f", d.seconds)) s, \(d.matches.count) reproduce"
                + (d.stop.map { "; stopped: \($0.rawValue)" } ?? ""))
        for m in d.matches.dropFirst() {
            let tie =
                d.indistinguishable.contains { $0.faults == m.faults } ? "as close: cannot be told apart" : "less close"
            out.append("    also reproduces (\(tie)): \(m.name)")
        }
        for m in d.matches {
            out.append(
                "    \(m.faults.map(\.rawValue).joined(separator: " + ")): \(m.checkersAgreeing)/\(m.checkersCompared) checkers agree with the live verdicts, \(m.claimsMatched) live evidence claim(s) repeated, \(m.applies) ops applied (live \(d.liveApplies))"
            )
        }
        for (faults, why) in d.rejected {
            out.append("    ruled out: \(faults.map(\.rawValue).joined(separator: " + ")): it also shows \(why)")
        }
        for (fault, reason) in d.unexercisable { out.append("    not tried: \(fault.rawValue): \(reason)") }
        if !d.liveServerOnly.isEmpty {
            out.append(
                "    not tried, only a live server shows them (whalesim conform checks them): \(d.liveServerOnly.map(\.rawValue).joined(separator: ", "))"
            )
        }
        if let best = d.matches.first {
            for fault in best.faults {
                let commands = conformCommands(fault, server: server)
                if commands.isEmpty {
                    out.append("    no conformance case isolates \(fault.rawValue) yet")
                }
                for c in commands { out.append("    isolate it: \(c)") }
            }
        }
        return out
    }

    /// The `diagnosis` object of `reproducer.json` (docs/run-record.md).
    static func json(_ d: FaultDiagnosis, server: String?) -> [String: Any] {
        func names(_ faults: [Fault]) -> [String] { faults.map(\.rawValue) }
        var o: [String: Any] = [
            "sentence": d.sentence, "side": d.side.rawValue, "seconds": (d.seconds * 1000).rounded() / 1000,
            "tried": d.tried.map(names), "liveApplies": d.liveApplies,
            "faults": d.matches.first.map { names($0.faults) } ?? [],
            "matches": d.matches.map { m in
                [
                    "faults": names(m.faults), "summaries": m.faults.map(\.summary),
                    "checkersAgreeing": m.checkersAgreeing, "checkersCompared": m.checkersCompared,
                    "claimsMatched": m.claimsMatched, "applies": m.applies,
                ] as [String: Any]
            },
            "indistinguishable": d.indistinguishable.map { names($0.faults) },
            "notTried": d.unexercisable.map { ["fault": $0.fault.rawValue, "reason": $0.reason] },
            "liveServerOnly": d.liveServerOnly.map(\.rawValue),
            "ruledOut": d.rejected.map { ["faults": names($0.faults), "why": $0.why] as [String: Any] },
            "conform": d.matches.first.map { $0.faults.flatMap { conformCommands($0, server: server) } } ?? [],
        ]
        if let stop = d.stop { o["stopped"] = stop.rawValue }
        return o
    }
}
