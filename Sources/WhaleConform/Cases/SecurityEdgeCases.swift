import Foundation
import WhaleLoad
import WhaleOT
import WhaleProtocol
import WhaleServer

/// Bad input and security at the edges (issue 48): where a real server errs, not the extremes
/// `SecurityCases` probe. A token expired a minute ago rather than in 1970, a refresh token spent
/// once, a revision one past the head, a message exactly at the size limit and one byte over, a
/// flood of exactly the burst and just over it, another organization's note id one character off
/// one of ours.
enum SecurityEdgeCases {
    static let all: [ConformCase] = [
        ConformCase(
            "security.token-expired-just-now",
            "A token signed with the server's key that expired a minute ago (the leeway the suite allows, --token-leeway, default 30 s, plus 30 s for the two clocks) is refused with unauthorized on the socket and 403 on GraphQL; one that expires a minute from now is accepted.",
            requires: [.protocol2, .jwtSecret], suspects: [.tokenExpiryLeewayDay]
        ) { c async throws(ConformFailure) in
            let ann = try await c.login(.member)
            let signer = AccessTokens(secret: c.target.jwtSecret ?? Data())
            let now = Int64(Date().timeIntervalSince1970)
            // Still valid for a minute: accepted, so the refusal below is the expiry's, not the key's.
            let live = signer.issue(userId: ann.userId, now: now - signer.lifetime + 60)
            let status = try await c.graphQLStatus(token: live)
            try c.expect(
                status == 200,
                "GraphQL with a token valid for another minute must answer HTTP 200; it answered \(status)")
            let ago = Int64(c.target.tokenLeewaySeconds) + 30
            let expired = signer.issue(userId: ann.userId, now: now - signer.lifetime - ago)
            try await c.expectRefusedToken(
                expired, pool: ann.organizationId,
                label: "a token expired \(ago) s ago (\(c.target.tokenLeewaySeconds) s past the leeway allowed)")
        },
        ConformCase(
            "security.refresh-token-reused",
            "A refresh token exchanged at /api/user/refresh for new tokens is spent: presented again it gets code 4004. A server that hands the same refresh token back does not rotate them: not applicable.",
            suspects: [.refreshTokenReuse]
        ) { c async throws(ConformFailure) in
            let login = c.target.member
            let session: ConformAPI.Session
            do { session = try await c.run.api.login(email: login.email, password: login.password) } catch {
                throw ConformFailure("sign-in of \(login.email) failed: \(error)")
            }
            guard let first = session.refreshToken else {
                throw ConformFailure("the sign-in of \(login.email) gave no data.tokens.refreshToken")
            }
            let exchanged = try await c.refresh(first, access: session.accessToken)
            try c.expect(
                exchanged.code == 1000,
                "/api/user/refresh with the sign-in's refresh token must answer code 1000; it answered \(exchanged.code.map { "\($0)" } ?? "no code"): \(exchanged.text.prefix(200))"
            )
            guard let second = exchanged.refreshToken, let access = exchanged.accessToken else {
                throw ConformFailure(
                    "/api/user/refresh answered 1000 without data.tokens {accessToken, refreshToken}: \(exchanged.text.prefix(200))"
                )
            }
            if second == first {
                throw ConformFailure.notApplicable(
                    "the server hands the same refresh token back (it does not rotate them), so none is ever spent")
            }
            // Not checked after this: a server may revoke the new token too once the old one is
            // replayed (OAuth's advice on a detected reuse), so the new one's fate is its own.
            let reused = try await c.refresh(first, access: access)
            try c.expect(
                reused.code == 4004,
                "the refresh token already exchanged for \(second.prefix(8))… must be refused with code 4004; the server answered \(reused.code.map { "\($0)" } ?? "HTTP \(reused.status)"): \(reused.text.prefix(200))"
            )
        },
        ConformCase(
            "security.bad-revision-one-past-head",
            "A docChange at exactly one revision past the head gets badRevision and is not applied (not taken as if at the head).",
            requires: [.protocol2], suspects: [.revisionPastHeadAccepted]
        ) { c async throws(ConformFailure) in
            let (note, _) = try await c.note("abc")
            let (a, conf) = try await c.member(.member, note: note, name: "A")
            let next = conf.revision + 1
            a.socket.sendRaw(
                #"{"messageId":"next","type":"docChange","data":{"resourceId":"\#(note)","rev":\#(next),"n":[3,0],"s":["","x"]}}"#
            )
            let answer = await c.errorOrAck(on: a.socket, messageId: "next")
            try c.expect(
                answer == "error badRevision",
                "a docChange at revision \(next), one past the head \(conf.revision), must earn badRevision; got \(answer); \(a.socket.recent(2))"
            )
            let final = try await c.read(note)
            try c.expect(
                final.initialState == "abc" && final.revision == conf.revision,
                "the refused change must apply nothing: \"abc\" at revision \(conf.revision); a fresh join reads \(quoted(final.initialState ?? "nil")) at \(final.revision)"
            )
        },
        ConformCase(
            "security.size-at-limit-and-one-over",
            "A docChange of exactly the server's size limit in bytes (--max-message-bytes) is applied; one of a byte more gets tooLarge and applies nothing.",
            requires: [.protocol2], suspects: [.sizeLimitOffByOne]
        ) { c async throws(ConformFailure) in
            let limit = c.target.maxMessageBytes
            let (note, _) = try await c.note("abc")
            let (a, conf) = try await c.member(.member, note: note, name: "A")
            let at = SecurityEdgeCases.paddedChange("at", note: note, rev: conf.revision, length: 3, bytes: limit)
            a.socket.sendRaw(at.frame)
            let first = await c.errorOrAck(on: a.socket, messageId: "at")
            try c.expect(
                first == "ack",
                "a docChange of exactly \(limit) bytes (the limit) must be applied; got \(first); \(a.socket.recent(2))"
            )
            let over = SecurityEdgeCases.paddedChange(
                "over", note: note, rev: conf.revision + 1, length: 3 + at.inserted, bytes: limit + 1)
            a.socket.sendRaw(over.frame)
            let second = await c.errorOrAck(on: a.socket, messageId: "over")
            try c.expect(
                second == "error tooLarge",
                "a docChange of \(limit + 1) bytes (one over the limit) must earn tooLarge; got \(second); \(a.socket.recent(2))"
            )
            let final = try await c.read(note)
            try c.expect(
                final.revision == conf.revision + 1 && final.initialState?.unicodeScalars.count == 3 + at.inserted,
                "only the change at the limit may apply: revision \(conf.revision + 1), \(3 + at.inserted) scalars; a fresh join reads revision \(final.revision), \(final.initialState?.unicodeScalars.count ?? 0) scalars"
            )
        },
        ConformCase(
            "security.rate-at-burst-and-just-over",
            "A socket's first messages, exactly the burst (twice --max-messages-per-second, default 500, the join included) sent back to back, are all served with no rateLimited; on a fresh socket the burst and more (half a second's rate, doubled while the server reads too slowly for it to be over) get rateLimited.",
            requires: [.protocol2], suspects: [.rateLimitOffByOne]
        ) { c async throws(ConformFailure) in
            let rate = c.target.maxMessagesPerSecond
            let burst = 2 * rate
            let (note, _) = try await c.note("rate")
            let (a, conf) = try await c.member(.member, note: note, name: "A")
            let cursor = SecurityEdgeCases.cursorFrame(note: note, rev: conf.revision)
            // The join was the first message: the burst's other messages are cursors and, last, an op.
            for _ in 0..<(burst - 2) { a.socket.sendRaw(cursor) }
            let last = a.send(Operation.replace(in: 4, at: 4, inserting: "!"), rev: conf.revision).messageId
            let answer = await c.errorOrAck(on: a.socket, messageId: last, anyRateLimited: true)
            try c.expect(
                answer == "ack",
                "\(burst) messages back to back on a fresh socket (the burst, twice \(rate) a second) must all be served: the last, an op, must be acknowledged; got \(answer); \(a.socket.recent(2))"
            )
            // Just over: the burst and some more on a fresh socket, its last message an op. A token
            // bucket refills while the server reads, so what "over" takes depends on how fast it
            // reads: served without a rateLimited in T seconds, burst + extra messages break the
            // limit when extra > rate × T; otherwise the round proves nothing and the next sends more.
            var extra = max(1, rate / 2)  // at least one, so a tiny rate still doubles its way up
            while extra <= 4 * rate {
                let (b, joined) = try await c.member(.colleague, note: note, name: "B\(extra)")
                let started = ContinuousClock.now
                for _ in 0..<(burst - 2 + extra) { b.socket.sendRaw(cursor) }
                let length = (joined.initialState ?? "").unicodeScalars.count
                let probe = b.send(Operation.replace(in: length, at: 0, inserting: "?"), rev: joined.revision).messageId
                let outcome = await c.errorOrAck(on: b.socket, messageId: probe, anyRateLimited: true)
                if outcome == "error rateLimited" { return }
                let elapsed = ContinuousClock.now - started
                let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                try c.expect(
                    outcome == "ack",
                    "\(burst + extra) messages back to back must be served or earn rateLimited; the last, an op, got \(outcome); \(b.socket.recent(2))"
                )
                try c.expect(
                    Double(extra) <= Double(rate) * seconds + 1,
                    "\(burst + extra) messages back to back were all served within \(String(format: "%.2f", seconds)) s, where \(rate) a second with bursts of \(burst) allows at most \(burst + Int(Double(rate) * seconds)); no rateLimited came; \(b.socket.recent(2))"
                )
                await b.close()
                extra *= 2
            }
            throw ConformFailure.notApplicable(
                "the server read floods of up to \(burst + 4 * rate) messages too slowly to be pushed past \(rate) a second with bursts of \(burst); the burst itself was served"
            )
        },
        ConformCase(
            "security.note-id-one-character-off",
            "Another organization's note whose id differs from one of ours only in its last character, or only in case, is forbidden on the socket (its pool, and a join of it): authorization compares whole ids, not a prefix or a case-folded id. A server that makes up its own account ids: not applicable.",
            requires: [.protocol2], suspects: [.noteIdPrefixMatch]
        ) { c async throws(ConformFailure) in
            let ann = try await c.login(.member)
            let base = "conform-\(c.run.tag)-\(c.run.accounts.next())-id"
            let ours = base + "a"
            guard try await c.createAccount(id: ours, as: .member) else {
                throw ConformFailure.notApplicable(
                    "saveAccounts did not keep the account id it was given (\(ours)): the server makes up its own, so the case cannot make two one character apart"
                )
            }
            var tried: [String] = []
            for (theirs, how) in [(base + "b", "its last character"), (base + "A", "case")] {
                guard try await c.createAccount(id: theirs, as: .outsider) else { continue }
                tried.append(theirs)
                let pool = try await c.socket(.member, pool: theirs, name: "pool-\(theirs.suffix(1))")
                let poolAnswer = await c.errorOrJoin(on: pool, messageId: nil)
                try c.expect(
                    poolAnswer == "error forbidden",
                    "the pool of another organization's account \(theirs), one of ours but for \(how), must be forbidden; got \(poolAnswer); \(pool.recent(2))"
                )
                let board = try await c.socket(.member, pool: ann.organizationId, name: "join-\(theirs.suffix(1))")
                let id = "join-\(theirs.suffix(1))"
                board.sendRaw(#"{"messageId":"\#(id)","type":"resourceConnection","data":{"resourceId":"\#(theirs)"}}"#)
                let joinAnswer = await c.errorOrJoin(on: board, messageId: id)
                try c.expect(
                    joinAnswer == "error forbidden",
                    "joining another organization's note \(theirs), one of ours but for \(how), must be forbidden; got \(joinAnswer); \(board.recent(2))"
                )
            }
            if tried.isEmpty {
                throw ConformFailure.notApplicable(
                    "saveAccounts did not keep either id one character off \(ours) for the other organization")
            }
        },
    ]

    /// A docChange frame of exactly `bytes` UTF-8 bytes: an insert of x's after `length` scalars,
    /// as many as make the size; the frame and how many it inserts.
    static func paddedChange(_ messageId: String, note: String, rev: Int, length: Int, bytes: Int) -> (
        frame: String, inserted: Int
    ) {
        func frame(_ pad: Int) -> String {
            #"{"messageId":"\#(messageId)","type":"docChange","data":{"resourceId":"\#(note)","rev":\#(rev),"n":[\#(length),0],"s":["","\#(String(repeating: "x", count: pad))"]}}"#
        }
        let pad = max(1, bytes - frame(0).utf8.count)
        return (frame(pad), pad)
    }

    static func cursorFrame(note: String, rev: Int) -> String {
        WireCodec.encode(
            ClientEnvelope(
                messageId: "f",
                message: .cursorUpdate(resourceId: note, rev: rev, selection: Selection(cursor: 1))))
    }
}

extension CaseContext {
    /// What answered `messageId` first: `ack` (its docChangeReturnOps), `error CODE` (an error in
    /// reply to it, or one in reply to nothing, as a refusal of an unreadable or oversize frame
    /// is; any rateLimited when `anyRateLimited`), or `nothing within T`.
    func errorOrAck(on socket: ConformSocket, messageId: String, anyRateLimited: Bool = false) async -> String {
        let answer = await socket.take { envelope in
            if case .error(let e) = envelope.message {
                return e.inReplyTo == messageId || e.inReplyTo == nil || (anyRateLimited && e.code == .rateLimited)
            }
            return envelope.messageId == messageId && envelope.message.typeName == "docChangeReturnOps"
        }
        switch answer?.message {
        case .error(let e)?: return "error \(e.code.rawValue)"
        case .some: return "ack"
        case nil: return "nothing within \(target.timeout)"
        }
    }

    /// What answered a pool socket's upgrade (`messageId` nil) or a join: `error CODE`, `joined`
    /// (poolJoined or resourceConnectionConf: let in), or `nothing within T`.
    func errorOrJoin(on socket: ConformSocket, messageId: String?) async -> String {
        let answer = await socket.take { envelope in
            switch envelope.message {
            case .error(let e): return messageId == nil || e.inReplyTo == messageId
            case .poolJoined: return messageId == nil
            case .resourceConnectionConf: return envelope.messageId == messageId
            default: return false
            }
        }
        switch answer?.message {
        case .error(let e)?: return "error \(e.code.rawValue)"
        case .some: return "joined"
        case nil: return "nothing within \(target.timeout)"
        }
    }

    /// The HTTP status of a GraphQL query made with `token`.
    func graphQLStatus(token: String) async throws(ConformFailure) -> Int {
        do {
            return try await run.api.send(
                HTTPRequestSpec(
                    method: "POST", url: target.baseURL + "/query",
                    headers: [("Content-Type", "application/json"), ("Authorization", token)],
                    body: Array(#"{"query":"{ accounts { id } }"}"#.utf8))
            ).status
        } catch {
            throw ConformFailure("GraphQL: \(error)")
        }
    }

    /// `/api/user/refresh` with `refreshToken` and the `access` token beside it: the REST code and
    /// the new tokens, if any.
    func refresh(_ refreshToken: String, access: String) async throws(ConformFailure) -> (
        status: Int, code: Int?, accessToken: String?, refreshToken: String?, text: String
    ) {
        let result: HTTPResult
        do {
            result = try await run.api.send(
                HTTPRequestSpec(
                    method: "POST", url: target.baseURL + "/api/user/refresh",
                    headers: [("Content-Type", "application/json"), ("Authorization", access)],
                    body: ConformAPI.jsonBody(["refreshToken": refreshToken])))
        } catch {
            throw ConformFailure("/api/user/refresh: \(error)")
        }
        let json = (try? JSONSerialization.jsonObject(with: Data(result.body))) as? [String: Any]
        let tokens = (json?["data"] as? [String: Any])?["tokens"] as? [String: Any]
        return (
            result.status, json?["code"] as? Int, tokens?["accessToken"] as? String,
            tokens?["refreshToken"] as? String, result.text
        )
    }

    /// Creates an account of `who`'s organization asking for `id`; whether the server kept it.
    func createAccount(id: String, as who: Who) async throws(ConformFailure) -> Bool {
        let session = try await login(who)
        let salesforceID = "conform-\(run.tag)-\(run.accounts.next())"
        do {
            let saved = try await run.api.saveAccounts(
                [["id": id, "salesforceID": salesforceID, "name": "Conformance \(caseId)"]], senderID: "conform-setup",
                token: session.accessToken)
            return saved.contains { $0.salesforceID == salesforceID && $0.id == id }
        } catch {
            throw ConformFailure("saveAccounts (account \(id) as \(who.rawValue)) failed: \(error)")
        }
    }
}
