import Foundation
import Testing
import WhaleProtocol
@testable import WhaleServer

/// Protocol 2 on the socket: tokens checked, organizations kept apart, and every bad frame gets
/// its `error` code while nothing is applied and the socket stays usable.
@Suite(.serialized) struct SocketSecurityTests {
    func errorCode(_ socket: TestSocket, inReplyTo id: String? = nil) async -> ProtocolErrorCode? {
        let envelope = await socket.next { envelope in
            guard case .error(let error) = envelope.message else { return false }
            return id == nil || error.inReplyTo == id
        }
        if case .error(let error)? = envelope?.message { return error.code }
        return nil
    }

    @Test func missingForgedExpiredAndWrongAlgorithmTokensAreRefused() async throws {
        let harness = try await ServerHarness.start()
        let ada = try await harness.login(ServerHarness.ada)
        let forged = AccessTokens(secret: Data("not-the-server-key-0123456789abc".utf8)).issue(
            userId: ada.userId, now: Int64(Date().timeIntervalSince1970))
        let expired = AccessTokens(secret: Data(ServerHarness.secret.utf8)).issue(userId: ada.userId, now: 1_000_000)
        let none =
            AccessTokens.base64URL(Data(#"{"alg":"none"}"#.utf8)) + "."
            + AccessTokens.base64URL(Data(#"{"userID":"\#(ada.userId)","exp":9999999999}"#.utf8)) + "."
        for token in [nil, forged, expired, none] {
            var headers = ["ObjectId": ada.organizationId]
            if let token { headers["Authorization"] = token }
            let socket = TestSocket(url: harness.socketURL + "?protocol=2", headers: headers)
            #expect(await errorCode(socket) == .unauthorized, "\(token ?? "no token")")
            #expect(await socket.closeCode() == 1008)
        }
        // Protocol 2 asked for by header instead of query: the same refusal.
        let byHeader = TestSocket(
            url: harness.socketURL, headers: ["ObjectId": ada.organizationId, "Whalesim-Protocol": "2"])
        #expect(await errorCode(byHeader) == .unauthorized)
        #expect(await byHeader.closeCode() == 1008)
        // The same refusals on GraphQL: HTTP 403, code 4003.
        for token in [nil, forged, expired, none] {
            let answer = try await harness.post("/query", ["query": "{ accounts { id } }"], token: token)
            #expect(answer.status == 403 && answer.json["code"] as? Int == 4003)
        }
        await harness.stop()
    }

    @Test func noCrossOrganizationAccessOnSocketsPoolsNotesOrGraphQL() async throws {
        let harness = try await ServerHarness.start()
        let ada = try await harness.login(ServerHarness.ada)
        let eve = try await harness.login(ServerHarness.eve)
        #expect(ada.organizationId != eve.organizationId)
        let adaAccount = try #require(try await harness.accountIds(token: ada.token).first)
        let eveAccount = try #require(try await harness.accountIds(token: eve.token).first)

        // Pools: another organization's id, or an account of it.
        for pool in [ada.organizationId, adaAccount] {
            let socket = TestSocket(
                url: harness.socketURL + "?protocol=2", headers: ["ObjectId": pool, "Authorization": eve.token])
            #expect(await errorCode(socket) == .forbidden, "pool \(pool)")
            #expect(await socket.closeCode() == 1008)
        }
        // Notes: join, change and cursor on another organization's account.
        let socket = TestSocket(
            url: harness.socketURL + "?protocol=2",
            headers: ["ObjectId": eve.organizationId, "Authorization": eve.token])
        let before = harness.server.note(adaAccount)
        for (id, frame) in [
            ("j", #"{"messageId":"j","type":"resourceConnection","data":{"resourceId":"\#(adaAccount)"}}"#),
            (
                "d",
                #"{"messageId":"d","type":"docChange","data":{"resourceId":"\#(adaAccount)","rev":0,"n":[0],"s":["x"],"opId":"e:1"}}"#
            ),
            (
                "c",
                #"{"messageId":"c","type":"cursorUpdate","data":{"resourceId":"\#(adaAccount)","rev":0,"anchor":0,"head":0}}"#
            ),
        ] {
            socket.send(frame)
            #expect(await errorCode(socket, inReplyTo: id) == .forbidden, "\(id)")
        }
        #expect(harness.server.note(adaAccount)?.text == before?.text)
        // Eve's own note still works on the same socket.
        socket.send(#"{"messageId":"mine","type":"resourceConnection","data":{"resourceId":"\#(eveAccount)"}}"#)
        #expect(await socket.next { $0.messageId == "mine" } != nil)
        socket.close()

        // GraphQL: every id of another organization reads as nothing and writes nothing.
        let reads = [
            ("query Q($id: ID!) { contacts(accountID: $id) { id } }", "contacts"),
            ("query Q($id: ID!) { tasks(associatedTo: $id) { id } }", "tasks"),
            ("query Q($id: String!) { accountAssignmentEntries(accountID: $id) { id } }", "accountAssignmentEntries"),
            ("query Q($id: ID!) { note(accountID: $id) { content } }", "note"),
        ]
        for (query, field) in reads {
            let answer = try await harness.graphQL(query, variables: ["id": adaAccount], token: eve.token)
            let leaked = (answer.data?[field] as? [Any])?.isEmpty == false || answer.data?[field] is [String: Any]
            #expect(!leaked, "\(field) leaked: \(String(describing: answer.data))")
        }
        let evesAccounts = try await harness.graphQL(
            "{ accounts { id } organization { id users { email } } }", token: eve.token)
        let ids = (evesAccounts.data?["accounts"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        #expect(!ids.contains(adaAccount))
        let emails = ((evesAccounts.data?["organization"] as? [String: Any])?["users"] as? [[String: Any]] ?? [])
            .compactMap { $0["email"] as? String }
        #expect(!emails.contains(ServerHarness.ada.email))
        let move = try await harness.graphQL(
            "mutation M($input: SaveTask!) { saveTask(senderID: \"eve\", input: $input) { id } }",
            variables: [
                "input": [
                    "id": "eve-task-1", "createdAt": "2026-01-01T00:00:00Z", "associatedTo": adaAccount,
                    "description": "x",
                ]
            ],
            token: eve.token)
        #expect(!move.errors.isEmpty, "a task on another organization's account is refused")
        // Every other write that names another organization's account: refused, nothing changed.
        let noteBefore = harness.server.noteText(adaAccount)
        let writes: [(String, [String: Any])] = [
            (
                "mutation M($input: [NewContact!]!) { saveContacts(senderID: \"eve\", input: $input) { id } }",
                ["input": [["accountID": adaAccount, "salesforceID": "003EVE", "firstName": "E", "lastName": "V"]]]
            ),
            (
                "mutation M($input: NewAccountAssignmentEntry!) { createAccountAssignmentEntry(senderID: \"eve\", input: $input) { id } }",
                ["input": ["accountId": adaAccount, "assignedBy": eve.userId, "assignedTo": eve.userId]]
            ),
            (
                "mutation M($input: NewNote!) { saveNote(input: $input) { content } }",
                ["input": ["id": adaAccount, "accountID": adaAccount, "content": "overwritten by eve"]]
            ),
            (
                "mutation M($input: NewUser!) { createUser(input: $input) { id } }",
                ["input": ["email": "mole@acme.test", "password": "secret-123", "organizationID": ada.organizationId]]
            ),
        ]
        for (query, variables) in writes {
            let answer = try await harness.graphQL(query, variables: variables, token: eve.token)
            #expect(!answer.errors.isEmpty, "\(query) was not refused: \(String(describing: answer.data))")
        }
        #expect(harness.server.noteText(adaAccount) == noteBefore, "eve's saveNote changed ada's note")
        let adaContacts = try await harness.graphQL(
            "query Q($id: ID!) { contacts(accountID: $id) { salesforceID } }", variables: ["id": adaAccount],
            token: ada.token)
        #expect(
            !(adaContacts.data?["contacts"] as? [[String: Any]] ?? []).contains {
                $0["salesforceID"] as? String == "003EVE"
            })
        // Eve's id for ada's account in saveAccounts: not a move of ada's card.
        let steal = try await harness.graphQL(
            "mutation M($input: [NewAccount!]!) { saveAccounts(senderID: \"eve\", input: $input) { id state } }",
            variables: ["input": [["id": adaAccount, "name": "Stolen", "state": "Worked"]]], token: eve.token)
        let adaBoard = try await harness.graphQL("{ accounts { id name state } }", token: ada.token)
        let card = (adaBoard.data?["accounts"] as? [[String: Any]] ?? []).first { $0["id"] as? String == adaAccount }
        #expect(card?["name"] as? String != "Stolen", "eve renamed ada's account (\(steal.errors))")
        await harness.stop()
    }

    @Test func everyBadFrameGetsItsErrorAndNothingIsApplied() async throws {
        let harness = try await ServerHarness.start {
            $0.maxMessageBytes = 4096; $0.maxMessagesPerSecond = 0
        }
        let ada = try await harness.login(ServerHarness.ada)
        let account = try #require(try await harness.accountIds(token: ada.token).first)
        let socket = TestSocket(
            url: harness.socketURL + "?protocol=2", headers: ["ObjectId": account, "Authorization": ada.token])
        socket.send(#"{"messageId":"j","type":"resourceConnection","data":{"resourceId":"\#(account)"}}"#)
        guard case .resourceConnectionConf(let conf)? = await socket.next(where: { $0.messageId == "j" })?.message
        else {
            Issue.record("no join"); return
        }
        let length = conf.initialState?.unicodeScalars.count ?? 0
        let cases: [(String, String, ProtocolErrorCode)] = [
            ("m1", "{not json", .malformedMessage),
            ("m2", #"{"messageId":"m2","type":"teleport","data":{}}"#, .unknownType),
            (
                "m3",
                #"{"messageId":"m3","type":"docChange","data":{"resourceId":"\#(account)","rev":"zero","n":[0],"s":["x"]}}"#,
                .malformedMessage
            ),
            (
                "m4",
                #"{"messageId":"m4","type":"docChange","data":{"resourceId":"\#(account)","rev":0,"n":[\#(length + 5)],"s":[""]}}"#,
                .badOperation
            ),
            (
                "m5",
                #"{"messageId":"m5","type":"docChange","data":{"resourceId":"\#(account)","rev":99999,"n":[0\#(length > 0 ? ",\(length)" : "")],"s":["x"\#(length > 0 ? ",\"\"" : "")]}}"#,
                .badRevision
            ),
            (
                "m6",
                #"{"messageId":"m6","type":"docChange","data":{"resourceId":"\#(account)","rev":-1,"n":[0],"s":["x"]}}"#,
                .badRevision
            ),
            (
                "m7",
                #"{"messageId":"m7","type":"docChange","data":{"resourceId":"not-joined","rev":0,"n":[0],"s":["x"]}}"#,
                .forbidden
            ),
            (
                "m8",
                #"{"messageId":"m8","type":"docChange","data":{"resourceId":"\#(account)","rev":0,"n":[0,1],"s":["x"]}}"#,
                .malformedMessage
            ),
        ]
        for (id, frame, code) in cases {
            socket.send(frame)
            // A frame that is not JSON has no messageId.
            let got = await errorCode(socket, inReplyTo: id == "m1" ? nil : id)
            #expect(
                got == code || (id == "m8" && got == .badOperation),
                "\(id): \(String(describing: got)) instead of \(code)")
        }
        socket.send(String(repeating: "x", count: 5000))
        #expect(await errorCode(socket) == .tooLarge)
        #expect(harness.server.note(account)?.revision == conf.revision, "nothing was applied")
        // Still usable.
        socket.send(
            #"{"messageId":"ok","type":"docChange","data":{"resourceId":"\#(account)","rev":\#(conf.revision),"n":[0\#(length > 0 ? ",\(length)" : "")],"s":["!"\#(length > 0 ? ",\"\"" : "")],"opId":"t:1"}}"#
        )
        #expect(await socket.next { $0.messageId == "ok" } != nil)
        socket.close()
        await harness.stop()
    }

    @Test func floodsAreRateLimitedWithAnError() async throws {
        let harness = try await ServerHarness.start { $0.maxMessagesPerSecond = 20 }
        let ada = try await harness.login(ServerHarness.ada)
        let socket = TestSocket(
            url: harness.socketURL + "?protocol=2",
            headers: ["ObjectId": ada.organizationId, "Authorization": ada.token])
        for index in 0..<200 {
            socket.send(#"{"messageId":"f\#(index)","type":"resourceConnection","data":{"resourceId":"nope"}}"#)
        }
        let limited = await socket.next { envelope in
            if case .error(let error) = envelope.message { return error.code == .rateLimited }
            return false
        }
        #expect(limited != nil)
        socket.close()
        await harness.stop()
    }
}
