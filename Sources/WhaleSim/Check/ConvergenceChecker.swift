import WhaleOT

/// After quiescence every client's text equals its document's text on the server, and the
/// server's text equals a replay of its history from the initial text.
public enum ConvergenceChecker {
    public static func check(_ history: History) -> CheckResult {
        check(history, log: AppliedLog.final(history))
    }

    /// The check with the server log already rebuilt (``Checkers/run(_:on:)`` builds it once).
    static func check(_ history: History, log: AppliedLog) -> CheckResult {
        var evidence = Evidence()
        var serverText: [Int: String] = [:]
        var serverRevision: [Int: Int] = [:]
        var quiescent: Bool?
        for entry in history.events {
            switch entry.event {
            case .serverFinal(let d, let text, let revision, _):
                serverText[d] = text
                serverRevision[d] = revision
            case .quiescence(let reached, _):
                quiescent = reached
            case .error(let c, History.divergedCode, let message):
                // Caught while it happened: the client resynchronized afterwards, so its final
                // text may well match; a reader of the note saw (and typed into) the wrong text.
                evidence.invalid("t=\(entry.time) \(history.clientNames[c]) diverged from the server on \(history.documentNames[history.clientDocuments[c]]) during the run: \(message)")
            default: break
            }
        }
        guard quiescent != nil, serverText.count == history.documentNames.count else {
            evidence.unknown("the run recorded no final state (it did not reach the liveness phase)")
            return evidence.result(.convergence)
        }
        for d in history.documentNames.indices {
            if let why = log.unobserved(d, serverRevision: serverRevision[d]) {
                // The clients are still compared with the server's text below; only the replay needs the whole history.
                evidence.unknown("\(history.documentNames[d]): \(why); the server's text is not checked against a replay")
                continue
            }
            var replay = TextDocument(history.initialTexts[d])
            for (i, e) in log.live[d].enumerated() {
                do throws(OTError) {
                    try replay.apply(e.op)
                } catch {
                    evidence.invalid("\(history.documentNames[d]): history op \(i + 1) (\(e.opId)) does not apply to the replayed text: \(error)")
                    break
                }
            }
            if replay.text != serverText[d]! {
                evidence.invalid("\(history.documentNames[d]): the server's text is not the replay of its history: \(firstDifference(serverText[d]!, replay.text))")
            }
        }
        for entry in history.events {
            guard case .clientFinal(let c, let text, let revision, let pending, let connected) = entry.event else { continue }
            let d = history.clientDocuments[c]
            let name = history.clientNames[c]
            let server = serverText[d]!
            if text != server {
                let line = "\(name) diverged from the server on \(history.documentNames[d]): \(firstDifference(text, server))"
                if quiescent == true && connected { evidence.invalid(line) } else { evidence.unknown(line + " (not quiescent)") }
            } else if quiescent == true, connected, pending == 0, revision != serverRevision[d]! {
                evidence.invalid("\(name) has the server's text but revision \(revision), the server \(serverRevision[d]!)")
            }
        }
        return evidence.result(.convergence)
    }
}
