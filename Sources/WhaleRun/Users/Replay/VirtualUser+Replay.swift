import Foundation
import WhaleOT
import WhaleSession

extension VirtualUser {
    /// Plays a recorded session (docs/sessions.md): its pauses (divided by `speed`), its note
    /// edits and selections at the user's own caret in the live note as it is then (so many
    /// users replaying one recording edit one note concurrently, judged by every checker), its
    /// GraphQL requests with the user's token, its own account and records, and fresh ids for
    /// what it creates. Then it stays connected until the load ends.
    func play(_ script: ReplayScript, speed: Double) async {
        guard let note, let plan = run.replay, let token = session?.accessToken else { return }
        while !note.isJoined, !run.isLoadOver {
            if note.needsReconnect { await note.reconnectIfNeeded() }
            await sleep(ms: 20)
        }
        guard note.isJoined else { return }
        plan.made("ws open")
        plan.made("ws resourceConnection")
        var ids = ReplayIDs(name: name, runTag: run.runTag, userId: session?.userId ?? "")
        if let recorded = script.noteAccount { ids.map[recorded] = accountId }
        var caret: Int?
        var last = 0
        for timed in script.steps {
            let pause = Int((Double(timed.atMs - last) / speed).rounded())
            last = timed.atMs
            if pause > 0 { await sleep(ms: pause) }
            if run.isLoadOver { break }
            if note.needsReconnect { await note.reconnectIfNeeded() }
            switch timed.step {
            case .edit(let position, let delete, let insert):
                let live = note.session
                let n = live.document.count
                let at = min(max(caret.map { live.selection.head + (position - $0) } ?? position, 0), n)
                note.edit(position: at, deleting: min(delete, n - at), inserting: insert, intendedUs: takePlanned())
                caret = position + insert.unicodeScalars.count
                plan.made(timed.kind)
            case .select(let anchor, let head):
                let live = note.session
                let n = live.document.count
                let base = caret ?? head
                func place(_ p: Int) -> Int { min(max(live.selection.head + (p - base), 0), n) }
                note.select(Selection(anchor: place(anchor), head: place(head)))
                caret = head
                plan.made(timed.kind)
            case .graphQL(_, let query, let variables, let response):
                let isMutation = query.drop { $0 == " " || $0 == "\n" }.hasPrefix("mutation")
                let sent = ids.substitute(variables ?? .object([:]), mutation: isMutation)
                let object =
                    (try? JSONSerialization.jsonObject(with: Data(sent.text.utf8)) as? [String: Any]) ?? [:]
                let started = run.clock.nowMs
                do {
                    let data = try await run.whaler.graphQL(query, variables: object, token: token)
                    plan.made(timed.kind, ms: run.clock.nowMs - started)
                    if let live = (try? JSONSerialization.data(withJSONObject: data)).flatMap({
                        JSONValue.parse([UInt8]($0))
                    }) {
                        ids.learn(recorded: response?["data"] ?? .null, live: live)
                    }
                } catch {
                    plan.failed(timed.kind, "\(error)")
                }
            }
        }
        if !run.isLoadOver { plan.finished() }
        while !run.isLoadOver {
            if note.needsReconnect { await note.reconnectIfNeeded() }
            await sleep(ms: 200)
        }
    }
}

/// How a replaying user's requests name records: a record the recording read is the one in the
/// same place of the user's own answer (its note's account is the user's); a record it created
/// gets a fresh id; the sender is the user; whoever the recording assigned to is the user.
struct ReplayIDs {
    let name: String
    let runTag: String
    let userId: String
    /// Recorded id → live id.
    var map: [String: String] = [:]
    /// Live records by id, as the user's answers gave them (to fill a saved record's other keys).
    var live: [String: [String: JSONValue]] = [:]
    var created = 0

    init(name: String, runTag: String, userId: String) {
        self.name = name
        self.runTag = runTag
        self.userId = userId
    }

    /// Walks the recorded answer beside the live one: records in the same place are the same record.
    mutating func learn(recorded: JSONValue, live: JSONValue) {
        switch (recorded, live) {
        case (.object(let r), .object(let l)):
            if case .string(let rid)? = r["id"], case .string(let lid)? = l["id"] {
                if map[rid] == nil { map[rid] = lid }
                self.live[lid] = l
            }
            for (k, v) in r { if let w = l[k] { learn(recorded: v, live: w) } }
        case (.array(let r), .array(let l)):
            for (a, b) in zip(r, l) { learn(recorded: a, live: b) }
        default: break
        }
    }

    mutating func substitute(_ value: JSONValue, mutation: Bool) -> JSONValue {
        switch value {
        case .object(let o):
            var out: [String: JSONValue] = [:]
            for key in o.keys.sorted() {
                let v = o[key]!
                switch key {
                case "senderID", "senderId": out[key] = .string(name)
                case "assignedTo", "assignedBy": out[key] = .string(userId)
                default: out[key] = substitute(v, mutation: mutation)
                }
            }
            if case .string(let rid)? = o["id"] {
                if let lid = map[rid] {
                    out["id"] = .string(lid)
                    // A saved record keeps the live record's upsert key and name.
                    for k in ["salesforceID", "name"] where o[k] != nil {
                        if let v = live[lid]?[k] { out[k] = v }
                    }
                } else if mutation {
                    // A record the session created: a fresh id for this user, each time.
                    created += 1
                    let fresh = "\(name)-replay-\(created)-\(runTag)"
                    map[rid] = fresh
                    out["id"] = .string(fresh)
                }
            }
            return .object(out)
        case .array(let a): return .array(a.map { substitute($0, mutation: mutation) })
        case .string(let s): return .string(map[s] ?? s)
        default: return value
        }
    }
}
