import WhaleOT

/// No lost or invented edits, with a shadow model that gives every inserted scalar an
/// identity (op, index): the server's applied (transformed) ops are replayed on identities.
///
/// - every applied op was sent by a client, and inserts exactly the text that client sent;
/// - no op is applied twice (its text would be doubled);
/// - every acknowledged op is in the server's final history (else its edit was lost);
/// - the server's final text is exactly the shadow's (nothing appears that nobody typed);
/// - protocol 2, after healing: every invoked op was acknowledged (none silently dropped),
///   and none was abandoned (refused by the server, or dropped by its client).
///   Protocol 1 loses unacknowledged edits on reconnect by design.
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
        var quiescent = false
        for entry in history.entries {
            switch entry.event {
            case .invoke(let c, let id, _, _):
                invokedOrder.append((id, c, entry.time))
            case .send(let c, let id, let op, _):
                if sent[id] == nil { sent[id] = (c, op, entry.time) }
            case .ack(_, let id, _):
                if acked[id] == nil { acked[id] = entry.time }
            case .failed(_, let id, let code):
                failed[id] = code
            case .serverFinal(let d, let text, _, _):
                serverText[d] = text
            case .quiescence(let reached, _):
                quiescent = reached
            default: break
            }
        }
        var appliedAt: [String: Int] = [:]
        for d in history.documentNames.indices {
            var shadow = ShadowText(initial: history.initialTexts[d])
            for (i, e) in log.live[d].enumerated() {
                if let first = appliedAt[e.opId] {
                    evidence.invalid("\(e.opId) applied twice on \(history.documentNames[d]) (revisions \(first) and \(i + 1)): its text \(String(reflecting: e.op.insertedText)) is doubled")
                } else {
                    appliedAt[e.opId] = i + 1
                }
                if let origin = sent[e.opId] {
                    let typed = origin.op.insertedText, applied = e.op.insertedText
                    if typed != applied {
                        evidence.invalid("\(e.opId): the server inserted \(String(reflecting: applied)) but \(history.clientNames[origin.client]) sent \(String(reflecting: typed))")
                    }
                } else {
                    evidence.invalid("revision \(i + 1) of \(history.documentNames[d]) applies \(e.opId), which no client sent")
                }
                if !shadow.apply(e.op, op: i) {
                    evidence.invalid("\(history.documentNames[d]) revision \(i + 1) (\(e.opId)) does not span the shadow text (\(e.op.baseLength) vs \(shadow.count) scalars)")
                    break
                }
            }
            if let text = serverText[d], shadow.text != text {
                evidence.invalid("\(history.documentNames[d]): the server's text holds characters its applied ops do not explain: \(firstDifference(text, shadow.text))")
            }
        }
        for lost in log.lost where acked[lost.entry.opId] != nil && appliedAt[lost.entry.opId] == nil {
            evidence.invalid("\(lost.entry.opId) was acknowledged at t=\(acked[lost.entry.opId]!) but dropped from \(history.documentNames[lost.document]) at t=\(lost.time) (\(lost.cause)): an acknowledged edit was lost")
        }
        for (id, time) in acked.sorted(by: { $0.key < $1.key }) where appliedAt[id] == nil && !log.lost.contains(where: { $0.entry.opId == id }) {
            evidence.invalid("\(id) was acknowledged at t=\(time) but is not in the server's history: an acknowledged edit was lost")
        }
        if history.protocolVersion >= 2 {
            for (id, code) in failed.sorted(by: { $0.key < $1.key }) {
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
