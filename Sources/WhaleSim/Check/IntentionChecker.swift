import WhaleOT

/// No lost or invented edits, with a shadow model that gives every inserted scalar an
/// identity (op, index): the server's applied (transformed) ops are replayed on identities.
///
/// - every applied op was sent by a client, and inserts exactly the text that client sent;
/// - no op is applied twice (its text would be doubled);
/// - every acknowledged op is in the server's final history (else its edit was lost);
/// - the server's final text is exactly the shadow's (nothing appears that nobody typed);
/// - every applied op deletes only scalars its author had seen (the initial text, its own earlier
///   ops, or ops before the revision it was sent against), and no more scalars than its user's
///   edits deleted (transform and compose can only shrink a delete): a too-wide delete is caught
///   here, with the scalars it took, not only later through convergence;
/// - protocol 2, after healing: every invoked op was acknowledged (none silently dropped),
///   and none was abandoned (refused by the server, or dropped by its client).
///   Protocol 1 loses unacknowledged edits on reconnect by design: each loss is a *finding*
///   (which client, which op, what text), reported without changing the verdict.
public enum IntentionChecker {
    public static func check(_ history: History) -> CheckResult {
        check(history, log: AppliedLog.final(history))
    }

    /// The check with the server log already rebuilt (``Checkers/run(_:on:)`` builds it once).
    static func check(_ history: History, log: AppliedLog) -> CheckResult {
        var evidence = Evidence()
        var sent: [String: (client: Int, op: Operation, time: SimTime)] = [:]
        var invokedOrder: [(id: String, client: Int, time: SimTime)] = []
        var acked: [String: SimTime] = [:]
        var failed: [String: String] = [:]
        var serverText: [Int: String] = [:]
        var serverRevision: [Int: Int] = [:]
        var ackedBy: [String: Int] = [:]
        var quiescent = false
        var widths = DeleteAllowance(clients: history.clientNames.count)
        var sentRevision: [String: Int] = [:]
        var invokedOp: [String: Operation] = [:]
        for entry in history.events {
            switch entry.event {
            case .edit(let c, _, let deleted, _):
                widths.edit(client: c, deleted: deleted)
            case .invoke(let c, let id, let op, _):
                invokedOrder.append((id, c, entry.time))
                invokedOp[id] = op
                widths.invoke(client: c, opId: id)
            case .send(let c, let id, let op, let revision):
                if sent[id] == nil { sent[id] = (c, op, entry.time) }
                sent[id]?.op = op
                sentRevision[id] = max(sentRevision[id] ?? 0, revision)
            case .ack(let c, let id, _):
                if acked[id] == nil { acked[id] = entry.time; ackedBy[id] = c }
            case .failed(_, let id, let code):
                failed[id] = code
            case .serverFinal(let d, let text, let revision, _):
                serverText[d] = text
                serverRevision[d] = revision
            case .quiescence(let reached, _):
                quiescent = reached
            default: break
            }
        }
        widths.finish()
        var appliedAt: [String: Int] = [:]
        // A live observer's gap: what it did not see cannot be replayed, so it is not judged.
        let unobserved = history.documentNames.indices.map { log.unobserved($0, serverRevision: serverRevision[$0]) }
        for d in history.documentNames.indices {
            var shadow = ShadowText(initial: history.initialTexts[d])
            let complete = unobserved[d] == nil
            if let why = unobserved[d] { evidence.unknown("\(history.documentNames[d]): \(why); its text is not replayed") }
            let log = log.live[d]
            for (i, e) in log.enumerated() {
                if let first = appliedAt[e.opId] {
                    evidence.invalid("\(e.opId) applied twice on \(history.documentNames[d]) (revisions \(first) and \(e.revision)): its text \(String(reflecting: e.op.insertedText)) is doubled")
                } else {
                    appliedAt[e.opId] = e.revision
                }
                if let origin = sent[e.opId] {
                    let typed = origin.op.insertedText, applied = e.op.insertedText
                    if typed != applied {
                        evidence.invalid("\(e.opId): the server inserted \(String(reflecting: applied)) but \(history.clientNames[origin.client]) sent \(String(reflecting: typed))")
                    }
                } else {
                    evidence.invalid("revision \(e.revision) of \(history.documentNames[d]) applies \(e.opId), which no client sent")
                }
                guard complete else { continue }
                var deleted: [(id: Int64, scalar: Unicode.Scalar)] = []
                if !shadow.apply(e.op, op: i, deleted: &deleted) {
                    evidence.invalid("\(history.documentNames[d]) revision \(i + 1) (\(e.opId)) does not span the shadow text (\(e.op.baseLength) vs \(shadow.count) scalars)")
                    break
                }
                let author = sent[e.opId]?.client ?? e.client
                let where_ = "\(e.opId) (\(history.clientNames[author]), revision \(i + 1) of \(history.documentNames[d]))"
                let unseen = deleted.filter { item in
                    guard item.id >= 0 else { return false } // the initial text: every client saw it
                    let j = Int(item.id >> 32)
                    return log[j].client != author && j >= (sentRevision[e.opId] ?? 0)
                }
                if !unseen.isEmpty {
                    let ops = Set(unseen.map { log[Int($0.id >> 32)].opId }).sorted()
                    evidence.invalid("\(where_) deleted \(String(reflecting: scalarsText(unseen.map(\.scalar)))), inserted by \(ops.joined(separator: ", ")) after revision \(sentRevision[e.opId] ?? 0), which its author had not seen")
                }
                if let allowed = widths.allowed[e.opId], deleted.count > allowed {
                    evidence.invalid("\(where_) deleted \(deleted.count) scalars \(String(reflecting: scalarsText(deleted.map(\.scalar)))) but its user's edits deleted \(allowed): a too-wide delete")
                }
            }
            if complete, let text = serverText[d], shadow.text != text {
                evidence.invalid("\(history.documentNames[d]): the server's text holds characters its applied ops do not explain: \(firstDifference(text, shadow.text))")
            }
        }
        for lost in log.lost where acked[lost.entry.opId] != nil && appliedAt[lost.entry.opId] == nil {
            evidence.invalid("\(lost.entry.opId) was acknowledged at t=\(acked[lost.entry.opId]!) but dropped from \(history.documentNames[lost.document]) at t=\(lost.time) (\(lost.cause)): an acknowledged edit was lost")
        }
        for (id, time) in acked.sorted(by: { $0.key < $1.key }) where appliedAt[id] == nil && !log.lost.contains(where: { $0.entry.opId == id }) {
            let d = ackedBy[id].map { history.clientDocuments[$0] }
            if let d, unobserved[d] != nil {
                evidence.unknown("\(id) was acknowledged at t=\(time) and is not among the observed revisions of \(history.documentNames[d]), whose record is incomplete: whether it was lost is unknown")
                continue
            }
            evidence.invalid("\(id) was acknowledged at t=\(time) but is not in the server's history: an acknowledged edit was lost")
        }
        if history.protocolVersion < 2 {
            // The original protocol has no resync: a reconnect throws pending edits away. Say which.
            for (id, code) in failed.sorted(by: { $0.key < $1.key }) {
                let op = sent[id]?.op ?? invokedOp[id]
                let client = invokedOrder.first { $0.id == id }.map { history.clientNames[$0.client] } ?? "?"
                evidence.finding("\(id) (\(client)) was lost (\(code)): inserted \(String(reflecting: op?.insertedText ?? "")), deleted \(op?.deletedCount ?? 0) scalars; the original protocol throws unacknowledged edits away on reconnect")
            }
            if quiescent {
                for op in invokedOrder where acked[op.id] == nil && failed[op.id] == nil && appliedAt[op.id] == nil {
                    evidence.finding("\(op.id) (\(history.clientNames[op.client]), invoked at t=\(op.time)) was never acknowledged: the edit was lost without a word")
                }
            }
        }
        if history.protocolVersion >= 2 {
            for (id, code) in failed.sorted(by: { $0.key < $1.key }) {
                // A client may give up on an op the server had already applied (its ack lost with
                // a socket, then its resend refused): the edit is in the server's history, not lost.
                if let revision = appliedAt[id] {
                    evidence.finding("\(id) was abandoned by its client (\(code)) although the server had applied it as revision \(revision): the edit was kept, the client gave it up for nothing")
                    continue
                }
                evidence.invalid("\(id) was abandoned (\(code)): the user's edit was lost")
            }
            if quiescent {
                for op in invokedOrder where acked[op.id] == nil && failed[op.id] == nil {
                    evidence.invalid("\(op.id) (\(history.clientNames[op.client]), invoked at t=\(op.time)) was never acknowledged after healing: the edit was lost")
                }
            }
        }
        return evidence.result(.intention)
    }
}

/// The shadow document: one identity per scalar, `(op << 32) | index` for inserted scalars
/// and negative for the initial text's.
struct ShadowText {
    private(set) var ids: [Int64]
    private(set) var scalars: [Unicode.Scalar]

    init(initial: String) {
        scalars = Array(initial.unicodeScalars)
        ids = (0..<scalars.count).map { -Int64($0) - 1 }
    }

    var count: Int { ids.count }

    /// Applies `op` (number `op` in the log); false if it does not span the text.
    mutating func apply(_ operation: Operation, op: Int) -> Bool {
        var deleted: [(id: Int64, scalar: Unicode.Scalar)] = []
        return apply(operation, op: op, deleted: &deleted)
    }

    /// Applies `op` and lists the identities and scalars it deleted.
    mutating func apply(_ operation: Operation, op: Int, deleted: inout [(id: Int64, scalar: Unicode.Scalar)]) -> Bool {
        guard operation.baseLength == ids.count else { return false }
        var newIds: [Int64] = []
        var newScalars: [Unicode.Scalar] = []
        newIds.reserveCapacity(operation.targetLength)
        newScalars.reserveCapacity(operation.targetLength)
        var position = 0
        var k: Int64 = 0
        for component in operation.components {
            switch component {
            case .retain(let n):
                newIds.append(contentsOf: ids[position..<position + n])
                newScalars.append(contentsOf: scalars[position..<position + n])
                position += n
            case .insert(let text, _):
                for scalar in text.unicodeScalars {
                    newIds.append(Int64(op) << 32 | k)
                    newScalars.append(scalar)
                    k += 1
                }
            case .delete(let n):
                for p in position..<position + n { deleted.append((ids[p], scalars[p])) }
                position += n
            }
        }
        ids = newIds
        scalars = newScalars
        return true
    }

    var text: String {
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars)
        return String(view)
    }
}

/// How many scalars each op may delete: the sum of the `deleted` counts of the user edits that
/// went into it. An edit belongs to the op invoked right after it, else (composed into a pending
/// op) to its client's last invoked op.
struct DeleteAllowance {
    private(set) var allowed: [String: Int] = [:]
    private var waiting: [Int?]
    private var lastOp: [String?]

    init(clients: Int) {
        waiting = Array(repeating: nil, count: clients)
        lastOp = Array(repeating: nil, count: clients)
    }

    mutating func edit(client c: Int, deleted: Int) {
        settle(c)
        waiting[c] = deleted
    }

    mutating func invoke(client c: Int, opId: String) {
        lastOp[c] = opId
        settle(c)
    }

    private mutating func settle(_ c: Int) {
        guard let n = waiting[c], let op = lastOp[c] else { return }
        allowed[op, default: 0] += n
        waiting[c] = nil
    }

    mutating func finish() {
        for c in waiting.indices { settle(c) }
    }
}

func scalarsText(_ scalars: [Unicode.Scalar]) -> String {
    var view = String.UnicodeScalarView()
    view.append(contentsOf: scalars.prefix(40))
    return String(view) + (scalars.count > 40 ? "…" : "")
}

extension Operation {
    /// Scalars the operation deletes.
    var deletedCount: Int {
        var n = 0
        for case .delete(let k) in components { n += k }
        return n
    }
}
