import Foundation
import WhaleOT

/// One history line (as `whalesim history` prints it) read back: its time, the event with clients
/// and documents by name (the indexes of the history that wrote it mean nothing elsewhere), for
/// `whalesim merge` and `whalesim reproduce`.
public struct NamedHistoryLine: Sendable {
    public var time: Int
    public var type: String
    /// Every client name the line mentions (client, observer, subject), in that order.
    public var clients: [String]
    public var document: String?
    /// Builds the event once the merged history has given every name an index.
    public var event: @Sendable (_ client: (String) -> Int, _ document: (String) -> Int) -> HistoryEvent?
}

/// A history line that cannot be read; says which line and why.
public struct HistoryDecodeError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public var description: String { message }
}

extension History {
    /// Reads history lines (as ``jsonLines()`` writes them) back into named lines.
    public static func decodeJSONLines(_ text: String, source: String) throws(HistoryDecodeError) -> [NamedHistoryLine]
    {
        var out: [NamedHistoryLine] = []
        for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: true).enumerated() {
            out.append(try decodeJSONLine(Data(line.utf8), source: source, number: n + 1))
        }
        return out
    }

    /// One line (a JSON object); `source` and `number` name it in errors. Readers of a history
    /// file in either form (WhaleRecord's `HistoryFiles.forEachLine`) call this per line.
    public static func decodeJSONLine(_ line: Data, source: String, number: Int) throws(HistoryDecodeError)
        -> NamedHistoryLine
    {
        guard let object = try? JSONSerialization.jsonObject(with: line) as? [String: Any] else {
            throw HistoryDecodeError(message: "\(source):\(number): not a JSON object")
        }
        do { return try decodeLine(object) } catch {
            throw HistoryDecodeError(message: "\(source):\(number): \(error.message)")
        }
    }

    private static func decodeLine(_ o: [String: Any]) throws(HistoryDecodeError) -> NamedHistoryLine {
        func int(_ k: String) throws(HistoryDecodeError) -> Int {
            guard let v = o[k] as? NSNumber else { throw HistoryDecodeError(message: "missing integer \(k)") }
            return v.intValue
        }
        func str(_ k: String) throws(HistoryDecodeError) -> String {
            guard let v = o[k] as? String else { throw HistoryDecodeError(message: "missing string \(k)") }
            return v
        }
        func bool(_ k: String) throws(HistoryDecodeError) -> Bool {
            guard let v = o[k] as? Bool else { throw HistoryDecodeError(message: "missing boolean \(k)") }
            return v
        }
        func op(_ k: String) throws(HistoryDecodeError) -> WhaleOT.Operation {
            let text = try str(k)
            guard let v = try? JSONDecoder().decode(WhaleOT.Operation.self, from: Data(text.utf8)) else {
                throw HistoryDecodeError(message: "\(k) is not an operation: \(text.prefix(80))")
            }
            return v
        }
        func lines(_ k: String) throws(HistoryDecodeError) -> [String] {
            let t = try str(k)
            return t.isEmpty ? [] : t.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        }
        let t = try int("t"), type = try str("type")
        let c = o["client"] as? String
        let d = o["document"] as? String
        var names: [String] = c.map { [$0] } ?? []
        let e: @Sendable ((String) -> Int, (String) -> Int) -> HistoryEvent?
        switch type {
        case "edit":
            let (p, del, ins) = (try int("position"), try int("deleted"), try str("inserted"))
            e = { cl, _ in .edit(client: cl(c!), position: p, deleted: del, inserted: ins) }
        case "invoke":
            let (id, x, r) = (try str("opId"), try op("op"), try int("baseRevision"))
            e = { cl, _ in .invoke(client: cl(c!), opId: id, op: x, baseRevision: r) }
        case "send":
            let (id, x, r) = (try str("opId"), try op("op"), try int("revision"))
            e = { cl, _ in .send(client: cl(c!), opId: id, op: x, revision: r) }
        case "ack":
            let (id, r) = (try str("opId"), try int("revision"))
            e = { cl, _ in .ack(client: cl(c!), opId: id, revision: r) }
        case "failed":
            let (id, why) = (try str("opId"), try str("reason"))
            e = { cl, _ in .failed(client: cl(c!), opId: id, code: why) }
        case "serverApply":
            let (id, x, r) = (try str("opId"), try op("op"), try int("revision"))
            e = { cl, dc in .serverApply(document: dc(d!), client: cl(c!), opId: id, op: x, revision: r) }
        case "serverRevision":
            let (f, to, cause) = (try int("from"), try int("to"), try str("cause"))
            e = { _, dc in .serverRevision(document: dc(d!), from: f, to: to, cause: cause) }
        case "observation":
            let (f, to, kindName, detail) = (try int("from"), try int("to"), try str("kind"), try str("detail"))
            guard let kind = ObservationKind(rawValue: kindName) else {
                throw HistoryDecodeError(message: "observation of unknown kind \(String(reflecting: kindName))")
            }
            e = { _, dc in .observation(document: dc(d!), from: f, to: to, kind: kind, detail: detail) }
        case "clientRevision":
            let r = try int("revision")
            e = { cl, _ in .clientRevision(client: cl(c!), revision: r) }
        case "error":
            let (code, m) = (try str("code"), try str("message"))
            e = { cl, _ in .error(client: cl(c!), code: code, message: m) }
        case "cursorDelivered", "selectionSet", "ownCursor":
            let (r, s) = (try int("revision"), Selection(anchor: try int("anchor"), head: try int("head")))
            let n = (o["textLength"] as? NSNumber)?.intValue ?? 0
            e = { cl, _ in
                switch type {
                case "cursorDelivered": .cursorDelivered(client: cl(c!), revision: r, selection: s)
                case "selectionSet": .selectionSet(client: cl(c!), revision: r, selection: s)
                default: .ownCursor(client: cl(c!), revision: r, selection: s, textLength: n)
                }
            }
        case "remoteCursor":
            let (ob, su, r, n) = (try str("observer"), try str("subject"), try int("revision"), try int("textLength"))
            let sel: Selection? =
                if let a = o["anchor"] as? NSNumber, let h = o["head"] as? NSNumber {
                    Selection(anchor: a.intValue, head: h.intValue)
                } else { nil }
            names = [ob, su]
            e = { cl, _ in .remoteCursor(observer: cl(ob), subject: cl(su), revision: r, selection: sel, textLength: n)
            }
        case "connect": e = { cl, _ in .connect(client: cl(c!)) }
        case "disconnect":
            let cause = try str("cause")
            e = { cl, _ in .disconnect(client: cl(c!), cause: cause) }
        case "serverCrash": e = { _, _ in .serverCrash }
        case "serverRestart": e = { _, _ in .serverRestart }
        case "note":
            let text = try str("text")
            e = { _, _ in .note(text) }
        case "heal": e = { _, _ in .heal }
        case "quiescence":
            let (reached, ticks) = (try bool("reached"), try int("ticksAfterHeal"))
            e = { _, _ in .quiescence(reached: reached, ticksAfterHeal: ticks) }
        case "traffic":
            let (m, a, n) = (try int("messages"), try int("actions"), try int("clients"))
            e = { _, _ in .traffic(messages: m, edits: a, clients: n) }
        case "clientFinal":
            let (text, r, p, conn) = (
                try str("text"), try int("revision"), try int("pendingOps"), try bool("connected")
            )
            e = { cl, _ in .clientFinal(client: cl(c!), text: text, revision: r, pendingOps: p, connected: conn) }
        case "serverFinal":
            let (text, r, h) = (try str("text"), try int("revision"), try int("historyCount"))
            e = { _, dc in .serverFinal(document: dc(d!), text: text, revision: r, historyCount: h) }
        case "modelInvoke":
            let (id, m) = (try str("requestId"), try str("mutation"))
            e = { cl, _ in .modelInvoke(client: cl(c!), requestId: id, mutation: m) }
        case "modelApply":
            let (id, order, records) = (try str("requestId"), try int("order"), try lines("records"))
            e = { cl, _ in .modelApply(client: cl(c!), requestId: id, order: order, records: records) }
        case "modelAck":
            let (id, order) = (try str("requestId"), try int("order"))
            e = { cl, _ in .modelAck(client: cl(c!), requestId: id, order: order) }
        case "modelFailed":
            let (id, why) = (try str("requestId"), try str("reason"))
            e = { cl, _ in .modelFailed(client: cl(c!), requestId: id, code: why) }
        case "modelClientFinal":
            let (page, records, p) = (try str("page"), try lines("records"), try int("pending"))
            e = { cl, _ in .modelClientFinal(client: cl(c!), page: page, records: records, pending: p) }
        case "modelServerFinal":
            let (page, records) = (try str("page"), try lines("records"))
            e = { cl, _ in .modelServerFinal(client: cl(c!), page: page, records: records) }
        case "modelServerState":
            let records = try lines("records")
            e = { _, _ in .modelServerState(records: records) }
        default:
            throw HistoryDecodeError(message: "unknown event type \(String(reflecting: type))")
        }
        if [
            "edit", "invoke", "send", "ack", "failed", "serverApply", "clientRevision", "error", "cursorDelivered",
            "selectionSet", "ownCursor",
            "connect", "disconnect", "clientFinal", "modelInvoke", "modelApply", "modelAck", "modelFailed",
            "modelClientFinal", "modelServerFinal",
        ].contains(type), c == nil {
            throw HistoryDecodeError(message: "\(type) without a client")
        }
        if ["serverApply", "serverRevision", "serverFinal", "observation"].contains(type), d == nil {
            throw HistoryDecodeError(message: "\(type) without a document")
        }
        return NamedHistoryLine(time: t, type: type, clients: names, document: d, event: e)
    }
}
