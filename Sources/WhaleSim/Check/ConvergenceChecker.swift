import WhaleOT

/// After quiescence every client's text equals its document's text on the server, and the
/// server's text equals a replay of its history from the initial text.
///
/// The replay moves as ops leave the log's window (``AppliedLog``): it holds each note's text
/// and the window, not the run's every op.
public enum ConvergenceChecker {
    public static func check(_ history: History) -> CheckResult {
        judge(history).result
    }

    /// The check, and the most it held at once. `windowSize`: ops kept per note (tests make it small).
    static func judge(_ history: History, windowSize: Int? = nil) -> (result: CheckResult, footprint: CheckFootprint) {
        var evidence = Evidence()
        let names = history.documentNames
        var log = AppliedLog(documents: names.count, windowSize: windowSize)
        var replay = history.initialTexts.map(TextDocument.init)
        // Per note, the first op that did not apply to the replay (the replay stops there).
        var failure: [String?] = Array(repeating: nil, count: names.count)
        var serverText: [Int: String] = [:]
        var serverRevision: [Int: Int] = [:]
        var quiescent: Bool?
        func fold(_ change: AppliedLog.Change) {
            guard case .folded(let d, let ordinal, let e) = change, failure[d] == nil else { return }
            do throws(OTError) {
                try replay[d].apply(e.op)
            } catch {
                failure[d] =
                    "\(names[d]): history op \(ordinal + 1) (\(e.opId)) does not apply to the replayed text: \(error)"
            }
        }
        for entry in history.events {
            log.consume(entry, history: history, fold)
            switch entry.event {
            case .serverFinal(let d, let text, let revision, _):
                serverText[d] = text
                serverRevision[d] = revision
            case .quiescence(let reached, _):
                quiescent = reached
            case .error(let c, History.divergedCode, let message):
                // Caught while it happened: the client resynchronized afterwards, so its final
                // text may well match; a reader of the note saw (and typed into) the wrong text.
                evidence.invalid(
                    "t=\(entry.time) \(history.clientNames[c]) diverged from the server on \(names[history.clientDocuments[c]]) during the run: \(message)"
                )
            default: break
            }
        }
        let footprint = CheckFootprint(windowEntries: log.peakEntries, opEntries: 0)
        guard quiescent != nil, serverText.count == names.count else {
            evidence.unknown("the run recorded no final state (it did not reach the liveness phase)")
            return (evidence.result(.convergence), footprint)
        }
        for d in names.indices {
            if let why = log.unobserved(d, serverRevision: serverRevision[d]) {
                // The clients are still compared with the server's text below; only the replay needs the whole history.
                evidence.unknown("\(names[d]): \(why); the server's text is not checked against a replay")
                continue
            }
            log.foldAll(d, fold)
            if let failure = failure[d] { evidence.invalid(failure) }
            let text = replay[d].text
            if text != serverText[d]! {
                evidence.invalid(
                    "\(names[d]): the server's text is not the replay of its history: \(firstDifference(serverText[d]!, text))"
                )
            }
        }
        for entry in history.events {
            guard case .clientFinal(let c, let text, let revision, let pending, let connected) = entry.event else {
                continue
            }
            let d = history.clientDocuments[c]
            let name = history.clientNames[c]
            let server = serverText[d]!
            if text != server {
                let line = "\(name) diverged from the server on \(names[d]): \(firstDifference(text, server))"
                if quiescent == true && connected {
                    evidence.invalid(line)
                } else {
                    evidence.unknown(line + " (not quiescent)")
                }
            } else if quiescent == true, connected, pending == 0, revision != serverRevision[d]! {
                evidence.invalid(
                    "\(name) has the server's text but revision \(revision), the server \(serverRevision[d]!)")
            }
        }
        return (evidence.result(.convergence), footprint)
    }
}
