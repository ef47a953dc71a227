import WhaleProtocol
import WhaleOT

extension History {
    /// One JSON object per line: `{"t":12,"type":"ack","client":"c01",...}`, in history order.
    /// Written only for reports (never on the simulated path).
    public func jsonLines() -> String {
        var out = ""
        forEachJSONLine { out += $0 + "\n" }
        return out
    }

    /// The same lines one at a time (without the newline), for writers that stream them
    /// (the compact history file) instead of holding the whole text.
    public func forEachJSONLine(_ body: (String) throws -> Void) rethrows {
        for entry in events {
            var fields: [(String, JSONScalar)] = [("t", .int(entry.time))]
            fields += describe(entry.event)
            try body("{" + fields.map { "\(jsonString($0.0)):\($0.1.json)" }.joined(separator: ",") + "}")
        }
    }

    private func client(_ c: Int) -> JSONScalar { .string(c >= 0 && c < clientNames.count ? clientNames[c] : "?") }
    private func document(_ d: Int) -> JSONScalar { .string(documentNames[d]) }

    private func describe(_ event: HistoryEvent) -> [(String, JSONScalar)] {
        switch event {
        case .edit(let c, let p, let d, let i):
            [
                ("type", "edit"), ("client", client(c)), ("position", .int(p)), ("deleted", .int(d)),
                ("inserted", .string(i)),
            ]
        case .invoke(let c, let id, let op, let r):
            [
                ("type", "invoke"), ("client", client(c)), ("opId", .string(id)),
                ("op", .string(op.compactDescription)), ("baseRevision", .int(r)),
            ]
        case .send(let c, let id, let op, let r):
            [
                ("type", "send"), ("client", client(c)), ("opId", .string(id)), ("op", .string(op.compactDescription)),
                ("revision", .int(r)),
            ]
        case .ack(let c, let id, let r):
            [("type", "ack"), ("client", client(c)), ("opId", .string(id)), ("revision", .int(r))]
        case .failed(let c, let id, let code):
            [("type", "failed"), ("client", client(c)), ("opId", .string(id)), ("reason", .string(code))]
        case .serverApply(let d, let c, let id, let op, let r):
            [
                ("type", "serverApply"), ("document", document(d)), ("client", client(c)), ("opId", .string(id)),
                ("op", .string(op.compactDescription)), ("revision", .int(r)),
            ]
        case .serverRevision(let d, let f, let t, let cause):
            [
                ("type", "serverRevision"), ("document", document(d)), ("from", .int(f)), ("to", .int(t)),
                ("cause", .string(cause)),
            ]
        case .observation(let d, let f, let t, let k, let detail):
            [
                ("type", "observation"), ("document", document(d)), ("from", .int(f)), ("to", .int(t)),
                ("kind", .string(k.rawValue)), ("detail", .string(detail)),
            ]
        case .clientRevision(let c, let r): [("type", "clientRevision"), ("client", client(c)), ("revision", .int(r))]
        case .error(let c, let code, let m):
            [("type", "error"), ("client", client(c)), ("code", .string(code)), ("message", .string(m))]
        case .cursorDelivered(let c, let r, let s):
            [
                ("type", "cursorDelivered"), ("client", client(c)), ("revision", .int(r)), ("anchor", .int(s.anchor)),
                ("head", .int(s.head)),
            ]
        case .selectionSet(let c, let r, let s):
            [
                ("type", "selectionSet"), ("client", client(c)), ("revision", .int(r)), ("anchor", .int(s.anchor)),
                ("head", .int(s.head)),
            ]
        case .ownCursor(let c, let r, let s, let n):
            [
                ("type", "ownCursor"), ("client", client(c)), ("revision", .int(r)), ("anchor", .int(s.anchor)),
                ("head", .int(s.head)), ("textLength", .int(n)),
            ]
        case .remoteCursor(let o, let s, let r, let sel, let n):
            [
                ("type", "remoteCursor"), ("observer", client(o)), ("subject", client(s)), ("revision", .int(r)),
                ("anchor", sel.map { .int($0.anchor) } ?? .null), ("head", sel.map { .int($0.head) } ?? .null),
                ("textLength", .int(n)),
            ]
        case .connect(let c): [("type", "connect"), ("client", client(c))]
        case .disconnect(let c, let cause): [("type", "disconnect"), ("client", client(c)), ("cause", .string(cause))]
        case .serverCrash: [("type", "serverCrash")]
        case .serverRestart: [("type", "serverRestart")]
        case .note(let text): [("type", "note"), ("text", .string(text))]
        case .heal: [("type", "heal")]
        case .quiescence(let reached, let ticks):
            [("type", "quiescence"), ("reached", .bool(reached)), ("ticksAfterHeal", .int(ticks))]
        case .traffic(let m, let e, let c):
            [("type", "traffic"), ("messages", .int(m)), ("actions", .int(e)), ("clients", .int(c))]
        case .clientFinal(let c, let t, let r, let p, let conn):
            [
                ("type", "clientFinal"), ("client", client(c)), ("text", .string(t)), ("revision", .int(r)),
                ("pendingOps", .int(p)), ("connected", .bool(conn)),
            ]
        case .serverFinal(let d, let t, let r, let h):
            [
                ("type", "serverFinal"), ("document", document(d)), ("text", .string(t)), ("revision", .int(r)),
                ("historyCount", .int(h)),
            ]
        case .modelInvoke(let c, let id, let m):
            [("type", "modelInvoke"), ("client", client(c)), ("requestId", .string(id)), ("mutation", .string(m))]
        case .modelApply(let c, let id, let o, let records):
            [
                ("type", "modelApply"), ("client", client(c)), ("requestId", .string(id)), ("order", .int(o)),
                ("records", .string(records.joined(separator: "\n"))),
            ]
        case .modelAck(let c, let id, let o):
            [("type", "modelAck"), ("client", client(c)), ("requestId", .string(id)), ("order", .int(o))]
        case .modelFailed(let c, let id, let code):
            [("type", "modelFailed"), ("client", client(c)), ("requestId", .string(id)), ("reason", .string(code))]
        case .modelClientFinal(let c, let page, let records, let p):
            [
                ("type", "modelClientFinal"), ("client", client(c)), ("page", .string(page)),
                ("records", .string(records.joined(separator: "\n"))), ("pending", .int(p)),
            ]
        case .modelServerFinal(let c, let page, let records):
            [
                ("type", "modelServerFinal"), ("client", client(c)), ("page", .string(page)),
                ("records", .string(records.joined(separator: "\n"))),
            ]
        case .modelServerState(let records):
            [("type", "modelServerState"), ("records", .string(records.joined(separator: "\n")))]
        }
    }
}

enum JSONScalar: ExpressibleByStringLiteral {
    case int(Int), string(String), bool(Bool), null
    init(stringLiteral value: String) { self = .string(value) }
    var json: String {
        switch self {
        case .int(let n): String(n)
        case .string(let s): jsonString(s)
        case .bool(let b): b ? "true" : "false"
        case .null: "null"
        }
    }
}

/// A JSON string literal for `s` (RFC 8259 escapes): the protocol codec's writer.
func jsonString(_ s: String) -> String { WireJSON.quoted(s) }

extension Operation {
    /// ot.js-like compact form for reports: `[3,"ab",-2]`.
    var compactDescription: String {
        "["
            + components.map { c in
                switch c {
                case .retain(let n): String(n)
                case .insert(let s, _): jsonString(s)
                case .delete(let n): String(-n)
                }
            }.joined(separator: ",") + "]"
    }
}
