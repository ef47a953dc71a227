import Foundation
import Testing
import WhaleProtocol
@testable import WhaleServer

/// GraphQL mutations with the original's names persist, then tell the pool: `resourceUpdate` to
/// the organization pool for accounts and to the account pool for contacts, tasks and
/// assignments; protocol 2 carries the record and a per-pool `seq`.
@Suite(.serialized) struct GraphQLPoolTests {
    func update(_ socket: TestSocket, for resourceId: String) async -> ServerEnvelope? {
        await socket.next(timeout: .seconds(10)) { envelope in
            if case .resourceUpdate(let id, _, _) = envelope.message { return id == resourceId }
            return false
        }
    }

    /// Returns once the socket is open and in its pool (a join answered proves both).
    func ready(_ socket: TestSocket, note: String) async {
        socket.send(#"{"messageId":"ready","type":"resourceConnection","data":{"resourceId":"\#(note)"}}"#)
        _ = await socket.next(timeout: .seconds(20)) { $0.messageId == "ready" }
    }

    @Test func movingACardTellsTheOrganizationPool() async throws {
        let harness = try await ServerHarness.start()
        let ada = try await harness.login(ServerHarness.ada)
        let bob = try await harness.login(ServerHarness.bob)
        let accounts = try await harness.graphQL("{ accounts { id salesforceID name state } }", token: ada.token)
        let account = try #require((accounts.data?["accounts"] as? [[String: Any]])?.first)
        let id = try #require(account["id"] as? String)
        let original = TestSocket(url: harness.socketURL, headers: ["ObjectId": ada.organizationId])
        let v2 = TestSocket(
            url: harness.socketURL + "?protocol=2",
            headers: ["ObjectId": bob.organizationId, "Authorization": bob.token])
        await ready(original, note: id)
        await ready(v2, note: id)

        let move = try await harness.graphQL(
            "mutation Move($senderID: ID, $input: [NewAccount!]!) { saveAccounts(senderID: $senderID, input: $input) { id state } }",
            variables: [
                "senderID": "ada-mac-1",
                "input": [
                    [
                        "id": id, "salesforceID": account["salesforceID"] ?? NSNull(), "name": account["name"]!,
                        "state": "In Progress",
                    ]
                ],
            ],
            token: ada.token)
        #expect(move.errors.isEmpty, "\(move.errors)")
        #expect(((move.data?["saveAccounts"] as? [[String: Any]])?.first?["state"] as? String) == "In Progress")

        let plain = try #require(await update(original, for: id))
        guard case .resourceUpdate(_, let firstSender, let firstUpdate) = plain.message else { return }
        #expect(firstSender == "ada-mac-1")
        #expect(firstUpdate == nil, "the original protocol carries no record")
        let rich = try #require(await update(v2, for: id))
        guard case .resourceUpdate(_, _, let secondUpdate) = rich.message else { return }
        #expect(
            secondUpdate?.recordType == "account" && (secondUpdate?.seq ?? 0) >= 1,
            "protocol 2 carries the record and seq")

        // The board as bob now reads it.
        let board = try await harness.graphQL("{ accounts { id state } }", token: bob.token)
        let states = (board.data?["accounts"] as? [[String: Any]] ?? []).filter { $0["id"] as? String == id }.compactMap
        { $0["state"] as? String }
        #expect(states.allSatisfy { $0 == "In Progress" })

        // An unknown column is refused and changes nothing.
        let bad = try await harness.graphQL(
            "mutation Move($input: [NewAccount!]!) { saveAccounts(senderID: \"x\", input: $input) { id } }",
            variables: ["input": [["id": id, "name": account["name"]!, "state": "Closed Won"]]], token: ada.token)
        #expect(!bad.errors.isEmpty)
        original.close(); v2.close()
        await harness.stop()
    }

    /// Protocol 2: the first frame a socket gets is `poolJoined` with its pool's `seq` at the
    /// join (0 before any update, then the last update's), so a page can tell whether its fetch
    /// covers everything before its socket was in the pool. The original protocol gets none.
    @Test func aProtocol2SocketIsToldWhereItsPoolStoodWhenItJoined() async throws {
        let harness = try await ServerHarness.start()
        let ada = try await harness.login(ServerHarness.ada)
        let accounts = try await harness.graphQL("{ accounts { id salesforceID name state } }", token: ada.token)
        let account = try #require((accounts.data?["accounts"] as? [[String: Any]])?.first)
        let id = try #require(account["id"] as? String)
        func firstMessage(_ socket: TestSocket) async -> ServerEnvelope? {
            guard case .message(let envelope)? = await socket.next(timeout: .seconds(20)) else { return nil }
            return envelope
        }
        let before = TestSocket(
            url: harness.socketURL + "?protocol=2",
            headers: ["ObjectId": ada.organizationId, "Authorization": ada.token])
        let first = try #require(await firstMessage(before))
        guard case .poolJoined(let pool, let seq0) = first.message else { Issue.record("first frame \(first)"); return }
        #expect(pool == ada.organizationId)
        let move = try await harness.graphQL(
            "mutation Move($senderID: ID, $input: [NewAccount!]!) { saveAccounts(senderID: $senderID, input: $input) { id state } }",
            variables: [
                "senderID": "ada-mac-1",
                "input": [
                    [
                        "id": id, "salesforceID": account["salesforceID"] ?? NSNull(), "name": account["name"]!,
                        "state": "Worked",
                    ]
                ],
            ],
            token: ada.token)
        #expect(move.errors.isEmpty, "\(move.errors)")
        // The update that move made reaches the socket that was in the pool, with the next seq.
        let update = try #require(await update(before, for: id))
        guard case .resourceUpdate(_, _, let carried?) = update.message else { Issue.record("\(update)"); return }
        #expect(carried.seq == seq0 + 1)
        let after = TestSocket(
            url: harness.socketURL + "?protocol=2",
            headers: ["ObjectId": ada.organizationId, "Authorization": ada.token])
        let marker = try #require(await firstMessage(after))
        #expect(marker.message == .poolJoined(poolId: ada.organizationId, seq: carried.seq))
        // The original protocol: no marker; a join's answer is the first frame.
        let original = TestSocket(url: harness.socketURL, headers: ["ObjectId": ada.organizationId])
        original.send(#"{"messageId":"ready","type":"resourceConnection","data":{"resourceId":"\#(id)"}}"#)
        let answer = try #require(await firstMessage(original))
        guard case .resourceConnectionConf = answer.message else {
            Issue.record("the original protocol got \(answer) first"); return
        }
        before.close(); after.close(); original.close()
        await harness.stop()
    }

    @Test func tasksGoToTheAccountPoolAndSoftDelete() async throws {
        let harness = try await ServerHarness.start()
        let ada = try await harness.login(ServerHarness.ada)
        let account = try #require(try await harness.accountIds(token: ada.token).first)
        let pool = TestSocket(
            url: harness.socketURL + "?protocol=2", headers: ["ObjectId": account, "Authorization": ada.token])
        await ready(pool, note: account)
        let save =
            "mutation Save($input: SaveTask!) { saveTask(senderID: \"s1\", input: $input) { id done description deletedAt } }"
        let task: [String: Any] = [
            "id": "6f1c2a7e-0000-4000-8000-000000000001", "createdAt": "2026-11-22T10:00:00Z", "associatedTo": account,
            "description": "call back", "done": false, "type": "call",
        ]
        let created = try await harness.graphQL(save, variables: ["input": task], token: ada.token)
        #expect(created.errors.isEmpty, "\(created.errors)")
        #expect(
            await update(pool, for: "6f1c2a7e-0000-4000-8000-000000000001") != nil,
            "the account pool hears of the new task")
        var done = task
        done["done"] = true
        _ = try await harness.graphQL(save, variables: ["input": done], token: ada.token)
        let listed = try await harness.graphQL(
            "query T($id: ID!) { tasks(associatedTo: $id) { id done } }", variables: ["id": account], token: ada.token)
        #expect(
            (listed.data?["tasks"] as? [[String: Any]])?.contains {
                $0["id"] as? String == task["id"] as? String && $0["done"] as? Bool == true
            } == true)
        var deleted = task
        deleted["deletedAt"] = "2026-11-22T11:00:00Z"
        _ = try await harness.graphQL(save, variables: ["input": deleted], token: ada.token)
        let after = try await harness.graphQL(
            "query T($id: ID!) { tasks(associatedTo: $id) { id } }", variables: ["id": account], token: ada.token)
        #expect(
            (after.data?["tasks"] as? [[String: Any]])?.contains { $0["id"] as? String == task["id"] as? String }
                == false, "a deleted task is not listed")
        pool.close()
        await harness.stop()
    }
}
