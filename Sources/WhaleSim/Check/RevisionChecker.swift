/// Revision and acknowledgement sanity: a client's revision never goes back; acks come in
/// the order the ops were invoked and never twice; a server document's revision only moves
/// by applying ops (never back, not even across a restart: it persists before it acks); and
/// at the end each server document's revision equals its history count.
public enum RevisionChecker {
    public static func check(_ history: History) -> CheckResult {
        check(history, log: AppliedLog.final(history))
    }

    /// The check with the server log already rebuilt (``Checkers/run(_:on:)`` builds it once).
    static func check(_ history: History, log: AppliedLog) -> CheckResult {
        var evidence = Evidence()
        var revision: [Int: Int] = [:]
        var invokeIndex: [String: Int] = [:]
        var lastAck: [Int: (id: String, index: Int)] = [:]
        var ackedIds: Set<String> = []
        for entry in history.events {
            let t = entry.time
            switch entry.event {
            case .invoke(let c, let id, _, _):
                invokeIndex[id] = invokeIndex.count
                _ = c
            case .clientRevision(let c, let r):
                if let old = revision[c], r < old {
                    evidence.invalid("t=\(t) \(history.clientNames[c])'s revision went back from \(old) to \(r)")
                }
                revision[c] = r
            case .ack(let c, let id, _):
                let name = history.clientNames[c]
                if ackedIds.contains(id) {
                    evidence.invalid("t=\(t) \(name) got a second acknowledgement for \(id)")
                }
                ackedIds.insert(id)
                if let index = invokeIndex[id] {
                    if let previous = lastAck[c], previous.index > index {
                        evidence.invalid("t=\(t) \(name): \(id) acknowledged after \(previous.id), though invoked before it")
                    }
                    lastAck[c] = (id, index)
                } else {
                    evidence.invalid("t=\(t) \(name) got an acknowledgement for \(id), which it never invoked")
                }
            case .serverRevision(let d, let from, let to, let cause) where to < from:
                evidence.invalid("t=\(t) \(history.documentNames[d])'s server revision went back from \(from) to \(to) (\(cause))")
            case .serverFinal(let d, _, let r, let count):
                if r != count {
                    evidence.invalid("\(history.documentNames[d]): server revision \(r) but \(count) ops in its history")
                }
            default: break
            }
        }
        for line in log.anomalies { evidence.invalid(line) }
        for line in log.conflicts { evidence.invalid(line) }
        return evidence.result(.revisions)
    }
}
