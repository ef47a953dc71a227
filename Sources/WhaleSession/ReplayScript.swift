/// A recorded session as a virtual user's steps: what the person did, not the bytes their app
/// sent. Note edits become "at my cursor, delete so many, insert these scalars" (positions in the
/// recorded note, which the replay turns into offsets from the user's live caret); selections
/// likewise; GraphQL requests stay requests (their tokens, ids and revisions are the replay's to
/// fill in). Sign-in, the socket's join and what the server sent are the user's own doing in a
/// replay, counted but not steps. What the tool cannot replay is kept with why.
public struct ReplayScript: Sendable {
    public enum Step: Sendable, Equatable {
        /// An edit at `position` of the recorded note (scalars).
        case edit(position: Int, delete: Int, insert: String)
        case select(anchor: Int, head: Int)
        /// `response`: what the recording got back, so the records it read can be matched to the
        /// replay's own (by place in the answer).
        case graphQL(operationName: String?, query: String, variables: JSONValue?, response: JSONValue?)
    }

    public struct Timed: Sendable, Equatable {
        /// Milliseconds since the session's first event.
        public var atMs: Int
        /// The request kind it counts as (``RequestKind``).
        public var kind: String
        public var step: Step
    }

    public var session: String
    public var steps: [Timed]
    /// The account whose note the session typed in (nil: none).
    public var noteAccount: String?
    /// Every request kind the session made, with how many (login and joins included).
    public var recordedMix: [String: Int]
    /// Request kinds the replay does not make, with how many and why.
    public var notReplayed: [String: (count: Int, why: String)]
    /// The recorded latency of each HTTP request, by kind (ms).
    public var recordedLatencies: [String: [Int]]
    /// How long the session lasted (first to last event), ms.
    public var spanMs: Int

    public static func == (a: ReplayScript, b: ReplayScript) -> Bool {
        a.session == b.session && a.steps == b.steps && a.noteAccount == b.noteAccount && a.recordedMix == b.recordedMix
    }

    /// The steps of `session` in `recording`.
    public static func make(_ recording: SessionRecording, session: String) -> ReplayScript {
        make(session: session, events: recording.events(of: session))
    }

    /// The steps of one session's `events` (in time order).
    public static func make(session: String, events: [SessionEvent]) -> ReplayScript {
        let t0 = events.first?.t ?? 0
        var script = ReplayScript(
            session: session, steps: [], noteAccount: nil, recordedMix: [:], notReplayed: [:], recordedLatencies: [:],
            spanMs: max(0, (events.last?.t ?? 0) - t0))
        /// The note each socket joined (resourceConnection), by connection.
        var joined: [String: String] = [:]
        func skip(_ kind: String, _ why: String) {
            let old = script.notReplayed[kind]?.count ?? 0
            script.notReplayed[kind] = (old + 1, why)
        }
        for e in events {
            let at = e.t - t0
            // What the server sent is no request: not parsed for a kind.
            let kind = e.kind == .wsReceive ? nil : RequestKind.of(e)
            if let kind { script.recordedMix[kind, default: 0] += 1 }
            switch (e.target, e.kind) {
            case (.salesforce, _):
                if let kind {
                    skip(
                        kind,
                        "Salesforce requests are the replay users' own import through the run's Salesforce, not replayed as recorded"
                    )
                }
            case (.whaler, .http):
                if let kind, let ms = e.durationMs { script.recordedLatencies[kind, default: []].append(ms) }
                let path = e.path?.split(separator: "?").first.map(String.init) ?? ""
                if kind == RequestKind.login { continue }  // the user's own sign-in, with its own identity
                if path.hasSuffix("/query"), let body = e.request, let query = body["query"]?.string {
                    script.steps.append(
                        Timed(
                            atMs: at, kind: kind ?? "graphql",
                            step: .graphQL(
                                operationName: body["operationName"]?.string, query: query,
                                variables: body["variables"],
                                response: e.response)))
                } else if let kind {
                    skip(
                        kind,
                        "a REST request other than the sign-in (refreshes and the rest: the replay's own session does not need them)"
                    )
                }
            case (.whaler, .wsOpen), (.whaler, .wsClose), (.whaler, .wsReceive):
                continue
            case (.whaler, .wsSend):
                guard let text = e.data, let message = JSONValue.parse(Array(text.utf8)),
                    let type = message["type"]?.string, let data = message["data"]
                else {
                    skip(kind ?? "ws other", "a frame that is not a Whaler message")
                    continue
                }
                switch type {
                case "resourceConnection":
                    if let id = data["resourceId"]?.string {
                        joined[e.connection] = id
                        if script.noteAccount == nil { script.noteAccount = id }
                    }
                case "docChange":
                    guard let n = data["n"]?.array, let s = data["s"]?.array, n.count == s.count else {
                        skip(kind ?? "ws docChange", "an op without n and s of one length")
                        continue
                    }
                    if let id = data["resourceId"]?.string ?? joined[e.connection], script.noteAccount == nil {
                        script.noteAccount = id
                    }
                    for edit in edits(n: n, s: s) {
                        script.steps.append(Timed(atMs: at, kind: kind ?? "ws docChange", step: edit))
                    }
                case "cursorUpdate":
                    if let anchor = data["anchor"]?.int, let head = data["head"]?.int {
                        script.steps.append(
                            Timed(atMs: at, kind: kind ?? "ws cursorUpdate", step: .select(anchor: anchor, head: head)))
                    }
                default:
                    skip(
                        kind ?? "ws \(type)",
                        "a socket message the replay's note session does not send on the user's behalf")
                }
            }
        }
        return script
    }

    /// The edits one op makes, in order, each at its position in the document as the edits
    /// before it left it (a delete and an insert at one place are one edit).
    static func edits(n: [JSONValue], s: [JSONValue]) -> [Step] {
        var out: [Step] = []
        var position = 0
        var pending: (at: Int, delete: Int, insert: String)?
        func flush() {
            if let p = pending {
                out.append(.edit(position: p.at, delete: p.delete, insert: p.insert))
                position = p.at + p.insert.unicodeScalars.count
            }
            pending = nil
        }
        for (k, v) in n.enumerated() {
            let count = v.int ?? 0
            let text = s[k].string ?? ""
            if count > 0 && text.isEmpty {
                flush()
                position += count
            } else if count < 0 {
                if pending == nil { pending = (position, 0, "") }
                pending!.delete += -count
            } else if count == 0, !text.isEmpty {
                if pending == nil { pending = (position, 0, "") }
                pending!.insert += text
            }
        }
        flush()
        return out
    }
}

/// The request kinds of a recording and of its replay, so the two mixes can be set side by side:
/// `login`, `graphql <operationName>` (else `graphql query|mutation <first field>`), `REST <METHOD>
/// <path>`, `ws open`, `ws <message type>`, `salesforce <METHOD> <path without ids>`.
public enum RequestKind {
    public static let login = "login"

    public static func of(_ e: SessionEvent) -> String? {
        let path = e.path?.split(separator: "?").first.map(String.init) ?? ""
        switch (e.target, e.kind) {
        case (.salesforce, .http):
            if path.contains("/query") { return "salesforce query" }
            if path.hasPrefix("/services/oauth2/token") || path.hasPrefix("/services/Soap/") {
                return "salesforce login"
            }
            return "salesforce \(e.method ?? "GET") \(genericPath(path))"
        case (.whaler, .http):
            if e.method == "POST", path.hasSuffix("/api/user/login") { return login }
            if path.hasSuffix("/query") { return graphQL(e.request) }
            return "REST \(e.method ?? "GET") \(path)"
        case (.whaler, .wsOpen): return "ws open"
        case (.whaler, .wsSend), (.whaler, .wsReceive):
            guard let text = e.data, let message = JSONValue.parse(Array(text.utf8)), let type = message["type"]?.string
            else { return "ws other" }
            return "ws \(type)"
        default: return nil
        }
    }

    /// `graphql Board`, or `graphql mutation saveTask` when the request has no operation name.
    public static func graphQL(_ body: JSONValue?) -> String {
        if let name = body?["operationName"]?.string, !name.isEmpty { return "graphql \(name)" }
        let query = body?["query"]?.string ?? ""
        let isMutation = query.trimmingCharactersInSet().hasPrefix("mutation")
        let field = firstField(query) ?? "?"
        return "graphql \(isMutation ? "mutation" : "query") \(field)"
    }

    static func firstField(_ query: String) -> String? {
        guard let open = query.firstIndex(of: "{") else { return nil }
        let rest = query[query.index(after: open)...].drop { $0 == " " || $0 == "\n" }
        let name = rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
        return name.isEmpty ? nil : String(name)
    }

    /// A Salesforce path with record ids and versions blanked (`/services/data/v#/sobjects/Account/#`).
    static func genericPath(_ path: String) -> String {
        "/"
            + path.split(separator: "/").map { part in part.contains(where: \.isNumber) ? "#" : String(part) }.joined(
                separator: "/")
    }
}

extension String {
    func trimmingCharactersInSet() -> Substring { drop { $0 == " " || $0 == "\n" || $0 == "\t" } }
}
