import Foundation
import WhaleOT
import WhaleProtocol
import WhaleLoad
import WhaleServer

/// Bad input and security (protocol 2; the original has no `error` and checks no token): every
/// `error` code of PROTOCOL.md §3 for the input that earns it, with nothing applied and the
/// socket still usable; oversize and flood; forged, expired and foreign tokens; another
/// organization's ids on the socket and over GraphQL.
enum SecurityCases {
    static let all: [ConformCase] = [
        ConformCase(
            "security.error-malformed-message",
            "Text that is not JSON, and a docChange whose rev is a string, get malformedMessage (the latter in reply to its messageId).",
            requires: [.protocol2]
        ) { c async throws(ConformFailure) in
            try await c.badFrames { note, _, _ in
                [
                    (nil, "{not json", .malformedMessage),
                    (
                        "bad-rev",
                        #"{"messageId":"bad-rev","type":"docChange","data":{"resourceId":"\#(note)","rev":"zero","n":[0],"s":["x"]}}"#,
                        .malformedMessage
                    ),
                ]
            }
        },
        ConformCase(
            "security.error-unknown-type",
            "A message of a type the protocol does not have gets unknownType.", requires: [.protocol2]
        ) { c async throws(ConformFailure) in
            try await c.badFrames { _, _, _ in
                [("teleport", #"{"messageId":"teleport","type":"teleport","data":{}}"#, .unknownType)]
            }
        },
        ConformCase(
            "security.error-unknown-resource",
            "A docChange for a note of the caller's organization that the socket has not joined gets unknownResource.",
            requires: [.protocol2]
        ) { c async throws(ConformFailure) in
            let other = try await c.freshAccount()
            try await c.badFrames { _, _, _ in
                [
                    (
                        "elsewhere",
                        #"{"messageId":"elsewhere","type":"docChange","data":{"resourceId":"\#(other)","rev":0,"n":[0],"s":["x"]}}"#,
                        .unknownResource
                    )
                ]
            }
        },
        ConformCase(
            "security.error-bad-revision",
            "A docChange at a revision past the head, or negative, gets badRevision.", requires: [.protocol2]
        ) { c async throws(ConformFailure) in
            try await c.badFrames { note, _, length in
                [
                    (
                        "future",
                        #"{"messageId":"future","type":"docChange","data":{"resourceId":"\#(note)","rev":99999,"n":[0,\#(length)],"s":["x",""]}}"#,
                        .badRevision
                    ),
                    (
                        "negative",
                        #"{"messageId":"negative","type":"docChange","data":{"resourceId":"\#(note)","rev":-1,"n":[0,\#(length)],"s":["x",""]}}"#,
                        .badRevision
                    ),
                ]
            }
        },
        ConformCase(
            "security.error-bad-operation",
            "A docChange whose op does not span the document (too long, too short) gets badOperation.",
            requires: [.protocol2]
        ) { c async throws(ConformFailure) in
            try await c.badFrames { note, rev, length in
                [
                    (
                        "long",
                        #"{"messageId":"long","type":"docChange","data":{"resourceId":"\#(note)","rev":\#(rev),"n":[\#(length + 5)],"s":[""]}}"#,
                        .badOperation
                    ),
                    (
                        "short",
                        #"{"messageId":"short","type":"docChange","data":{"resourceId":"\#(note)","rev":\#(rev),"n":[0,\#(length - 1)],"s":["x",""]}}"#,
                        .badOperation
                    ),
                ]
            }
        },
        ConformCase(
            "security.error-too-large",
            "A message over the server's size limit gets tooLarge (the socket stays usable).", requires: [.protocol2]
        ) { c async throws(ConformFailure) in
            let size = c.target.maxMessageBytes + c.target.maxMessageBytes / 2
            try await c.badFrames { note, _, _ in
                [
                    (
                        nil,
                        #"{"messageId":"big","type":"docChange","data":{"resourceId":"\#(note)","rev":0,"n":[0],"s":[""#
                            + String(repeating: "x", count: size) + #""]}}"#, .tooLarge
                    )
                ]
            }
        },
        ConformCase(
            "security.flood-rate-limited",
            "A flood of messages past the server's rate gets rateLimited (not silence), and the socket works again once the flood stops.",
            requires: [.protocol2]
        ) { c async throws(ConformFailure) in
            let (note, _) = try await c.note("flood")
            let (a, conf) = try await c.member(.member, note: note, name: "A")
            let cursor = WireCodec.encode(
                ClientEnvelope(
                    messageId: "f",
                    message: .cursorUpdate(resourceId: note, rev: conf.revision, selection: Selection(cursor: 1))))
            for _ in 0..<c.target.floodMessages { a.socket.sendRaw(cursor) }
            let limited = await a.socket.take {
                if case .error(let e) = $0.message { return e.code == .rateLimited }; return false
            }
            try c.expect(
                limited != nil,
                "\(c.target.floodMessages) messages back to back must earn a rateLimited error; none came; \(a.socket.recent())"
            )
            try? await Task.sleep(for: .milliseconds(500))  // the rate refills tokens (at least one)
            let op = Operation.replace(in: 5, at: 5, inserting: "!")
            let ack = try await a.takeOpOrError(a.send(op, rev: conf.revision).messageId)
            try c.expect(ack == op, "after the flood an op must apply as sent; got \(ack)")
        },
        ConformCase(
            "security.token-missing-or-forged",
            "A socket without a token, with one signed by another key, or with alg none is refused with unauthorized; GraphQL answers them HTTP 403 (code 4003).",
            requires: [.protocol2]
        ) { c async throws(ConformFailure) in
            let ann = try await c.login(.member)
            let forged = AccessTokens(secret: Data("not-the-server-key-0123456789abc".utf8)).issue(
                userId: ann.userId, now: Int64(Date().timeIntervalSince1970))
            let none =
                SecurityCases.base64URL(#"{"alg":"none","typ":"JWT"}"#) + "."
                + SecurityCases.base64URL(#"{"userID":"\#(ann.userId)","exp":9999999999}"#) + "."
            for (label, token) in [("no token", nil), ("a forged token", forged), ("an alg-none token", none)]
                as [(String, String?)]
            {
                try await c.expectRefusedToken(token, pool: ann.organizationId, label: label)
            }
        },
        ConformCase(
            "security.token-expired",
            "A token signed with the server's key but expired is refused with unauthorized on the socket and 403 on GraphQL.",
            requires: [.protocol2, .jwtSecret]
        ) { c async throws(ConformFailure) in
            let ann = try await c.login(.member)
            let expired = AccessTokens(secret: c.target.jwtSecret ?? Data()).issue(userId: ann.userId, now: 1_000_000)
            try await c.expectRefusedToken(expired, pool: ann.organizationId, label: "an expired token")
        },
        ConformCase(
            "security.token-other-organization",
            "A valid token of another organization's user opening the organization's board pool, or one of its account pools, is refused with forbidden.",
            requires: [.protocol2]
        ) { c async throws(ConformFailure) in
            let ann = try await c.login(.member)
            let account = try await c.freshAccount()
            for pool in [ann.organizationId, account] {
                let socket = try await c.socket(.outsider, pool: pool, name: "outsider")
                let error = await socket.takeError(inReplyTo: nil)
                try c.expect(
                    error?.code == .forbidden,
                    "another organization's user on pool \(pool) must get forbidden; got \(error.map { "\($0.code.rawValue)" } ?? "no error"); \(socket.recent())"
                )
            }
        },
        ConformCase(
            "security.cross-organization-ids",
            "Another organization's note ids are forbidden on the socket (join, change, cursor) and change nothing; over GraphQL they read as nothing and every write naming them is refused.",
            requires: [.protocol2]
        ) { c async throws(ConformFailure) in
            let (note, _) = try await c.note("private")
            let dee = try await c.login(.outsider)
            let socket = try await c.socket(.outsider, pool: dee.organizationId, name: "outsider")
            for (id, frame) in [
                ("x-join", #"{"messageId":"x-join","type":"resourceConnection","data":{"resourceId":"\#(note)"}}"#),
                (
                    "x-change",
                    #"{"messageId":"x-change","type":"docChange","data":{"resourceId":"\#(note)","rev":0,"n":[0],"s":["x"],"opId":"x:1"}}"#
                ),
                (
                    "x-cursor",
                    #"{"messageId":"x-cursor","type":"cursorUpdate","data":{"resourceId":"\#(note)","rev":0,"anchor":0,"head":0}}"#
                ),
            ] {
                socket.sendRaw(frame)
                let error = await socket.takeError(inReplyTo: id)
                try c.expect(
                    error?.code == .forbidden,
                    "\(id) on another organization's note must get forbidden; got \(error.map { $0.code.rawValue } ?? "no error"); \(socket.recent())"
                )
            }
            let contacts = try? await c.graphQL(
                .outsider, "query($id: ID!) { contacts(accountID: $id) { id } }", variables: ["id": note],
                what: "contacts")
            try c.expect(
                (contacts?["contacts"] as? [Any] ?? []).isEmpty,
                "contacts of another organization's account must read as nothing; got \(String(describing: contacts))")
            let task: [String: Any] = [
                "id": UUID().uuidString.lowercased(), "createdAt": ModelCases.now(), "associatedTo": note,
                "description": "x",
            ]
            let refused = try await c.graphQLRefusal(
                .outsider, "mutation($input: SaveTask!) { saveTask(input: $input, senderID: \"x\") { id } }",
                variables: ["input": task])
            try c.expect(refused != nil, "saveTask on another organization's account must be refused; it was accepted")
            _ = try? await c.graphQL(
                .outsider, "mutation($input: [NewAccount!]!) { saveAccounts(input: $input, senderID: \"x\") { id } }",
                variables: ["input": [["id": note, "name": "Stolen"]]], what: "saveAccounts")
            let final = try await c.read(note, as: .member)
            try c.expect(
                final.initialState == "private",
                "another organization's frames changed the note: it reads \(quoted(final.initialState ?? "nil"))")
        },
    ]

    static func base64URL(_ text: String) -> String {
        Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(
            of: "/", with: "_"
        ).replacingOccurrences(of: "=", with: "")
    }
}

extension CaseContext {
    /// A note holding "abc" joined by A; each of `frames(note, revision, length)` (messageId it names,
    /// frame text, code) must earn its error; then nothing was applied and A's socket still works.
    func badFrames(_ frames: (String, Int, Int) -> [(String?, String, ProtocolErrorCode)]) async throws(ConformFailure)
    {
        let (note, _) = try await note("abc")
        let (a, conf) = try await member(.member, note: note, name: "A")
        for (id, frame, code) in frames(note, conf.revision, 3) {
            a.socket.sendRaw(frame)
            let error = await a.socket.takeError(inReplyTo: id)
            try expect(
                error?.code == code,
                "\(frame.prefix(120))\(frame.count > 120 ? "…" : "") must earn the error \(code.rawValue)\(id.map { " in reply to \($0)" } ?? ""); got \(error.map { "\($0.code.rawValue): \($0.message)" } ?? "nothing within \(target.timeout)"); \(a.socket.recent(2))"
            )
        }
        let op = Operation.replace(in: 3, at: 3, inserting: "!")
        let ack = try await a.takeOpOrError(a.send(op, rev: conf.revision).messageId)
        try expect(
            ack == op,
            "after the refusals the socket must still work: an op at revision \(conf.revision) must apply as sent; got \(ack)"
        )
        let final = try await read(note)
        try expect(
            final.initialState == "abc!" && final.revision == conf.revision + 1,
            "refused frames must apply nothing: the note must read \"abc!\" at revision \(conf.revision + 1); it reads \(quoted(final.initialState ?? "nil")) at \(final.revision)"
        )
    }

    /// A socket opened with `token` is refused with `unauthorized`; GraphQL with it gets 403.
    func expectRefusedToken(_ token: String?, pool: String, label: String) async throws(ConformFailure) {
        let socket = try await socket(.member, pool: pool, name: "token", token: .some(token))
        let error = await socket.takeError(inReplyTo: nil)
        try expect(
            error?.code == .unauthorized,
            "a socket with \(label) must get unauthorized; got \(error.map { $0.code.rawValue } ?? "no error"); \(socket.recent())"
        )
        var headers = [("Content-Type", "application/json")]
        if let token { headers.append(("Authorization", token)) }
        do {
            let result = try await run.api.send(
                HTTPRequestSpec(
                    method: "POST", url: target.baseURL + "/query", headers: headers,
                    body: Array(#"{"query":"{ accounts { id } }"}"#.utf8)))
            try expect(
                result.status == 403,
                "GraphQL with \(label) must answer HTTP 403; it answered \(result.status): \(result.text.prefix(160))")
        } catch let failure as ConformFailure {
            throw failure
        } catch {
            throw ConformFailure("GraphQL with \(label): \(error)")
        }
    }
}
