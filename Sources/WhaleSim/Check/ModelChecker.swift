/// Model convergence (DESIGN.md): after quiescence every client's page (its board, or its
/// account's contacts, tasks and assignment entries) equals the server's answer to that page's
/// fetch; and every acknowledged mutation is in the final state or superseded: each record it
/// wrote is in the server's final state as written, or a later mutation in server order wrote
/// that record again. A history without model events is valid (nothing to check).
///
/// A mutation whose call failed as `unavailable` (the server went away before answering) or
/// that never got an answer may or may not have been applied (Jepsen's indeterminate `info`):
/// when such a mutation names the record (its id, or a Salesforce id in the record), a record
/// that differs from an acknowledged write is reported unknown, not a lost mutation.
public enum ModelChecker {
    public static func check(_ history: History) -> CheckResult {
        var evidence = Evidence()
        var applies: [String: (client: Int, order: Int, records: [String])] = [:]
        var lastWrite: [String: Int] = [:]
        var acks: [(client: Int, id: String, order: Int, time: SimTime)] = []
        var clientFinal: [Int: (page: String, records: [String], pending: Int)] = [:]
        var serverFinal: [Int: [String]] = [:]
        var serverState: [String: String]?
        var quiescent: Bool?
        var sawModel = false
        var invoked: [(id: String, mutation: String)] = []
        var answered: Set<String> = []
        for entry in history.events {
            switch entry.event {
            case .modelInvoke(_, let id, let mutation):
                invoked.append((id, mutation))
            case .modelFailed(_, let id, let code) where code != "unavailable":
                answered.insert(id)
            case .modelApply(let c, let id, let order, let records):
                sawModel = true
                answered.insert(id)
                applies[id] = (c, order, records)
                for line in records { lastWrite[key(line)] = max(lastWrite[key(line)] ?? 0, order) }
            case .modelAck(let c, let id, let order):
                acks.append((c, id, order, entry.time))
            case .modelClientFinal(let c, let page, let records, let pending):
                sawModel = true
                clientFinal[c] = (page, records, pending)
            case .modelServerFinal(let c, _, let records):
                serverFinal[c] = records
            case .modelServerState(let records):
                var state: [String: String] = [:]
                for line in records { state[key(line)] = line }
                serverState = state
            case .quiescence(let reached, _):
                quiescent = reached
            default: break
            }
        }
        guard sawModel else { return evidence.result(.model) }
        guard let serverState, quiescent != nil else {
            evidence.unknown("the run recorded no final model state (it did not reach the liveness phase)")
            return evidence.result(.model)
        }
        for (c, final) in clientFinal.sorted(by: { $0.key < $1.key }) {
            let name = history.clientNames[c]
            let server = serverFinal[c] ?? []
            guard final.records != server else { continue }
            let line = "\(name)'s \(final.page) differs from the server's: \(difference(final.records, server))"
            if quiescent == true, final.pending == 0 { evidence.invalid(line) } else { evidence.unknown(line + " (not quiescent)") }
        }
        for ack in acks {
            let name = history.clientNames[ack.client]
            guard let apply = applies[ack.id] else {
                evidence.invalid("t=\(ack.time) \(name)'s \(ack.id) was acknowledged but the server never applied it")
                continue
            }
            for line in apply.records {
                let k = key(line)
                if serverState[k] == line || (serverState[k] == nil && line.contains("\"tracked\":false")) { continue }
                if let last = lastWrite[k], last > apply.order { continue }
                let now = serverState[k].map { "the server has \($0)" } ?? "the server has no such record"
                let unanswered = invoked.filter { !answered.contains($0.id) && Self.names($0.mutation, key: k, record: serverState[k]) }
                if let maybe = unanswered.first {
                    evidence.unknown("\(name)'s \(ack.id) wrote \(line) and \(now); \(maybe.id) (\(maybe.mutation)) got no answer (the server went away) and may have written it")
                    continue
                }
                evidence.invalid("\(name)'s \(ack.id) (order \(apply.order), acknowledged at t=\(ack.time)) wrote \(line), nothing later wrote \(k), but \(now): an acknowledged mutation was lost")
            }
        }
        return evidence.result(.model)
    }

    /// Whether a mutation's summary (`saveTask t-1 done=true …`, `saveAccounts 0015…→Lead`)
    /// names the record: one of the ids it names (a word, or what stands before `→`; not the
    /// `name=value` settings) is the record's id or a string value in its current line.
    static func names(_ mutation: String, key: String, record: String?) -> Bool {
        let id = key.firstIndex(of: ":").map { String(key[key.index(after: $0)...]) } ?? key
        let words = mutation.split(whereSeparator: { $0 == " " || $0 == "," }).dropFirst()
        return words.contains { word in
            guard !word.contains("=") else { return false }
            let named = String(word.prefix { $0 != "→" })
            return !named.isEmpty && named != "deleted" && (named == id || record?.contains("\"\(named)\"") == true)
        }
    }

    /// The key of a "key json" line.
    static func key(_ line: String) -> String {
        line.firstIndex(of: " ").map { String(line[..<$0]) } ?? line
    }

    /// The first record where two sorted "key json" lists differ.
    static func difference(_ client: [String], _ server: [String]) -> String {
        var byKey: [String: (client: String?, server: String?)] = [:]
        for line in client { byKey[key(line), default: (nil, nil)].client = line }
        for line in server { byKey[key(line), default: (nil, nil)].server = line }
        for (k, pair) in byKey.sorted(by: { $0.key < $1.key }) where pair.client != pair.server {
            let shown = pair.client.map { String($0.dropFirst(k.count + 1)) } ?? "nothing"
            let truth = pair.server.map { String($0.dropFirst(k.count + 1)) } ?? "nothing"
            return "\(k): the client shows \(shown), the server \(truth) (\(client.count) vs \(server.count) records)"
        }
        return "\(client.count) vs \(server.count) records"
    }
}
