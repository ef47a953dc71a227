import WhaleProtocol

/// Model convergence (DESIGN.md): after quiescence every client's page (its board, or its
/// account's contacts, tasks and assignment entries) equals the server's answer to that page's
/// fetch; and every acknowledged mutation is in the final state or superseded: each record it
/// wrote is in the server's final state as written, or a later mutation in server order wrote
/// that record again. A history without model events is valid (nothing to check).
///
/// A mutation whose call failed as `unavailable` (the server went away before answering) or
/// that never got an answer may or may not have been applied (Jepsen's indeterminate `info`):
/// when such a mutation names the record (its id, or a Salesforce id in the record), a record
/// that differs from an acknowledged write is reported unknown, not a lost mutation; and when
/// the server's record is exactly the acknowledged write with what that mutation sets applied
/// (`saveTask`'s `done` and `assignedTo`, and `deletedAt` set when it deletes; `saveAccounts`' and
/// `saveContacts`' state), the mutation took effect after the write, a history the protocol
/// allows: valid, with a finding.
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
            if quiescent == true, final.pending == 0 {
                evidence.invalid(line)
            } else {
                evidence.unknown(line + " (not quiescent)")
            }
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
                let unanswered = invoked.filter {
                    !answered.contains($0.id) && Self.names($0.mutation, key: k, record: serverState[k])
                }
                if let server = serverState[k],
                    let maybe = unanswered.first(where: { Self.explains($0.mutation, written: line, server: server) })
                {
                    evidence.finding(
                        "\(name)'s \(ack.id) wrote \(line); the server has \(server), which is that write with \(maybe.id) (\(maybe.mutation)) applied after it: that call got no answer (the server went away) and took effect"
                    )
                    continue
                }
                if let maybe = unanswered.first {
                    evidence.unknown(
                        "\(name)'s \(ack.id) wrote \(line) and \(now); \(maybe.id) (\(maybe.mutation)) got no answer (the server went away) and may have written it"
                    )
                    continue
                }
                evidence.invalid(
                    "\(name)'s \(ack.id) (order \(apply.order), acknowledged at t=\(ack.time)) wrote \(line), nothing later wrote \(k), but \(now): an acknowledged mutation was lost"
                )
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

    /// Whether the server's line is the acknowledged `written` line with the settings an
    /// unanswered `mutation` names applied and nothing else changed. Only the settings a summary
    /// carries count: `saveTask ID done=B assignedTo=U`, and with `deleted` a `deletedAt` set
    /// (the summary does not carry its time, so any time the server's record shows), and
    /// `saveAccounts`/`saveContacts SFID→STATE`; any other mutation explains nothing.
    static func explains(_ mutation: String, written: String, server: String) -> Bool {
        guard key(written) == key(server),
            case .object(let before)? = try? WireJSON.parse(String(written.dropFirst(key(written).count + 1))),
            case .object(let after)? = try? WireJSON.parse(String(server.dropFirst(key(server).count + 1)))
        else { return false }
        let words = mutation.split(separator: " ").map(String.init)
        guard let verb = words.first else { return false }
        var settings: [(String, WireJSON)] = []
        switch verb {
        case "saveTask":
            let deletes = words.count == 5 && words[4] == "deleted"
            guard words.count == 4 || deletes, written.contains("\"\(words[1])\"") else { return false }
            for word in words[2..<4] {
                let pair = word.split(separator: "=", maxSplits: 1).map(String.init)
                guard pair.count == 2 else { return false }
                switch (pair[0], pair[1]) {
                case ("done", "true"): settings.append(("done", .bool(true)))
                case ("done", "false"): settings.append(("done", .bool(false)))
                case ("assignedTo", "null"): settings.append(("assignedTo", .null))
                case ("assignedTo", let user): settings.append(("assignedTo", .string(user)))
                default: return false
                }
            }
            if deletes {
                // Deleted at some time (the summary does not carry it): whichever the server kept, as long as it kept one.
                guard let at = after.first(where: { $0.0 == "deletedAt" })?.1, case .string = at else { return false }
                settings.append(("deletedAt", at))
            }
        case "saveAccounts", "saveContacts":
            guard words.count == 2 else { return false }
            // The entry for this record: its Salesforce id (or id) is a string in the written line.
            let entries = words[1].split(separator: ",").map { $0.split(separator: "→", maxSplits: 1).map(String.init) }
            guard let entry = entries.first(where: { $0.count == 2 && written.contains("\"\($0[0])\"") }) else {
                return false
            }
            settings.append(("state", entry[1] == "null" ? .null : .string(entry[1])))
        default:
            return false
        }
        var expected = before
        for (name, value) in settings {
            if let i = expected.firstIndex(where: { $0.0 == name }) {
                expected[i].1 = value
            } else {
                expected.append((name, value))
            }
        }
        // Member order aside, and a null member the same as none (a record's JSON may leave it out).
        func members(_ object: [(String, WireJSON)]) -> [String: WireJSON] {
            var out: [String: WireJSON] = [:]
            for (name, value) in object where value != .null { out[name] = value }
            return out
        }
        return members(expected) == members(after)
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
