import Foundation
import WhaleSim

/// The embedded server's backpressure marks (`serve --backpressure-log`) in the run's history.
/// Only the server knows when it marked a connection slow (its send queue past
/// `live.slow-client-queue`, or its socket not writable); as history notes in the simulator's
/// words (`c003 backpressure on` / `off`, with `after revision 17`: the note's revision when the
/// mark took effect) they let `whalesim reproduce` put `slow` and `unslow` steps where the live
/// server had them, between the same two ops, as it does for a simulated run's backpressure.
extension LiveRun {
    /// The log's file in the run's working directory.
    static func backpressureLogPath(in directory: URL) -> String {
        directory.appendingPathComponent("backpressure.jsonl").path
    }

    /// Reads the log and records each mark at its run time: Unix ms less the run's start
    /// (both clocks of this machine). A connection id is the client's name tagged with the run
    /// (`c003.mk3x9.2`); one that names no client (a recorder, a pool socket) is noted as such.
    /// Marks from before the run (a team server's log that outlives runs) are skipped.
    /// Returns how many marks were read.
    @discardableResult
    static func recordBackpressure(path: String, recorder: LiveRecorder, epochStartMs: Int64) -> Int {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return 0 }
        let names = Set(recorder.clientNames)
        let baselines = recorder.baselines
        var count = 0
        for line in text.split(separator: "\n") {
            guard let o = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any],
                let ms = (o["ms"] as? NSNumber)?.int64Value, let id = o["client"] as? String,
                let slow = o["slow"] as? Bool, ms >= epochStartMs
            else { continue }
            let at = max(0, Int(ms - epochStartMs))
            let name = String(id.split(separator: ".").first ?? Substring(id))
            // The joined note's revision when the mark took effect, counted as the history counts
            // it (from the note's baseline): the broadcasts of later revisions are the ones it acts on.
            var after = ""
            if let note = o["note"] as? String, let revision = (o["revision"] as? NSNumber)?.intValue,
                let d = recorder.documentNames.firstIndex(of: note)
            {
                after = " after revision \(revision - baselines[d].revision)"
            }
            if names.contains(name) {
                recorder.record(.note("\(name) backpressure \(slow ? "on" : "off")\(after)"), atMs: at)
            } else {
                recorder.record(.note("the server marked connection \(id) \(slow ? "slow" : "drained")"), atMs: at)
            }
            count += 1
        }
        return count
    }
}
