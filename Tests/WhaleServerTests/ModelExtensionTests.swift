import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import Testing
import WhaleModel
@testable import WhaleServer

/// whalesim's GraphQL extensions for the load runner: `whalesimPage` (a `PoolSnapshot` stamped
/// with its pool's `seq`), `whalesimModelState` (the caller's organization's records as lines)
/// and, with `Whalesim-Protocol: 2`, each mutation's model reply in `extensions.whalesim`.
/// Nothing of another organization shows; without the header the response is the original's.
@Suite(.serialized) struct ModelExtensionTests {
    static let page = "query P($id: ID) { whalesimPage(accountID: $id) }"
    static let state = "{ whalesimModelState }"
    static let saveTask = "mutation S($input: SaveTask!) { saveTask(senderID: \"runner-1\", input: $input) { id } }"

    /// A POST to `/query` with extra headers: the status, the raw body and the body as JSON.
    func post(
        _ harness: ServerHarness, _ query: String, variables: [String: Any] = [:], token: String,
        headers: [String: String] = [:]
    ) async throws -> (status: Int, body: String, json: [String: Any]) {
        var request = URLRequest(url: URL(string: harness.base + "/query")!)
        request.httpMethod = "POST"
        request.httpBody = try JSONSerialization.data(withJSONObject: ["query": query, "variables": variables])
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue(token, forHTTPHeaderField: "Authorization")
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, status): (Data, Int) = try await withCheckedThrowingContinuation { continuation in
            URLSession.shared.dataTask(with: request) { data, response, error in
                if let error { continuation.resume(throwing: error); return }
                continuation.resume(returning: (data ?? Data(), (response as? HTTPURLResponse)?.statusCode ?? -1))
            }.resume()
        }
        let json = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        return (status, String(decoding: data, as: UTF8.self), json)
    }

    func errors(_ json: [String: Any]) -> [String] {
        (json["errors"] as? [[String: Any]] ?? []).compactMap { $0["message"] as? String }
    }

    /// `extensions.whalesim.mutations` decoded: each reply and its written lines.
    func mutations(_ json: [String: Any]) throws -> [(reply: MutationReply, written: [String])] {
        let extensions = try #require(json["extensions"] as? [String: Any])
        let whalesim = try #require(extensions["whalesim"] as? [String: Any])
        let entries = try #require(whalesim["mutations"] as? [[String: Any]])
        return try entries.map { entry in
            let reply = try #require(entry["reply"] as? [String: Any], "reply is a nested object, not a string")
            let decoded = try JSONDecoder().decode(
                MutationReply.self, from: JSONSerialization.data(withJSONObject: reply))
            return (decoded, try #require(entry["written"] as? [String]))
        }
    }

    func snapshot(_ harness: ServerHarness, _ accountID: String?, token: String) async throws -> PoolSnapshot {
        let answer = try await post(harness, Self.page, variables: accountID.map { ["id": $0] } ?? [:], token: token)
        #expect(errors(answer.json).isEmpty, "\(errors(answer.json))")
        let text = try #require((answer.json["data"] as? [String: Any])?["whalesimPage"] as? String)
        return try JSONDecoder().decode(PoolSnapshot.self, from: Data(text.utf8))
    }

    func modelState(_ harness: ServerHarness, token: String) async throws -> [String] {
        let answer = try await post(harness, Self.state, token: token)
        #expect(errors(answer.json).isEmpty, "\(errors(answer.json))")
        return try #require((answer.json["data"] as? [String: Any])?["whalesimModelState"] as? [String])
    }

    func task(_ id: String, on account: String, _ description: String) -> [String: Any] {
        [
            "id": id, "createdAt": "2026-11-22T10:00:00Z", "associatedTo": account, "description": description,
            "done": false, "type": "call",
        ]
    }

    @Test func pagesAreTheModelsSnapshotsAndTheirSeqRisesWithEachUpdate() async throws {
        let harness = try await ServerHarness.start()
        let ada = try await harness.login(ServerHarness.ada)
        let bob = try await harness.login(ServerHarness.bob)
        let caller = Caller(userId: ada.userId, organizationId: ada.organizationId)

        let board = try await snapshot(harness, nil, token: ada.token)
        #expect(board == harness.server.model.read { try? $0.answer(.board, caller) })
        #expect(board.poolId == ada.organizationId)
        #expect(
            board.accounts.map(\.id) == (try await harness.accountIds(token: ada.token)),
            "the board is the tracked accounts")
        let explicitNull = try await post(harness, Self.page, variables: ["id": NSNull()], token: ada.token)
        #expect(
            ((explicitNull.json["data"] as? [String: Any])?["whalesimPage"] as? String).map { Data($0.utf8) }
                .flatMap { try? JSONDecoder().decode(PoolSnapshot.self, from: $0) } == board,
            "a null accountID is the board too")

        let account = try #require(board.accounts.first)
        let page = try await snapshot(harness, account.id, token: ada.token)
        #expect(page == harness.server.model.read { try? $0.answer(.accountPage(accountID: account.id), caller) })
        #expect(page.poolId == account.id && !page.contacts.isEmpty && !page.tasks.isEmpty)

        // Another user moves the card: one update in the organization pool.
        let move = try await harness.graphQL(
            "mutation M($input: [NewAccount!]!) { saveAccounts(input: $input) { id } }",
            variables: [
                "input": [
                    ["id": account.id, "salesforceID": account.salesforceID, "name": account.name, "state": "Worked"]
                ]
            ], token: bob.token)
        #expect(move.errors.isEmpty, "\(move.errors)")
        let moved = try await snapshot(harness, nil, token: ada.token)
        #expect(moved.seq == board.seq + 1)
        #expect(moved.accounts.first { $0.id == account.id }?.state == "Worked")

        // Another user saves a task: one update in the account pool.
        let saved = try await harness.graphQL(
            Self.saveTask, variables: ["input": task("6f1c2a7e-0000-4000-8000-00000000e001", on: account.id, "by bob")],
            token: bob.token)
        #expect(saved.errors.isEmpty, "\(saved.errors)")
        let after = try await snapshot(harness, account.id, token: ada.token)
        #expect(after.seq == page.seq + 1)
        #expect(after.tasks.contains { $0.id == "6f1c2a7e-0000-4000-8000-00000000e001" })
        // Both mutations are counted on the metrics page.
        let (_, metrics) = try await harness.get("/metrics")
        #expect(metrics.split(separator: "\n").contains("whalesim_mutations_total 2"), "\(metrics)")
        await harness.stop()
    }

    @Test func pagesOfAnotherOrganizationOrOfNothingAreErrors() async throws {
        let harness = try await ServerHarness.start()
        let eve = try await harness.login(ServerHarness.eve)
        let foreign = try await post(harness, Self.page, variables: ["id": "acc-acme-1"], token: eve.token)
        #expect(
            errors(foreign.json).contains { $0.contains("notFound") && $0.contains("acc-acme-1") }, "\(foreign.body)")
        #expect(foreign.json["data"] is NSNull || foreign.json["data"] == nil, "\(foreign.body)")
        for leak in ["Burlington", "con-acme", "org-acme", "seq"] {
            #expect(!foreign.body.contains(leak), "\(foreign.body)")
        }

        let nothing = try await post(harness, Self.page, variables: ["id": "nope"], token: eve.token)
        #expect(errors(nothing.json).contains { $0.contains("nope") }, "\(nothing.body)")
        await harness.stop()
    }

    @Test func modelStateIsTheCallersOrganizationOnlyAndHoldsWhatWasWritten() async throws {
        let harness = try await ServerHarness.start()
        let ada = try await harness.login(ServerHarness.ada)
        let eve = try await harness.login(ServerHarness.eve)
        let acme = try await modelState(harness, token: ada.token)
        let globex = try await modelState(harness, token: eve.token)
        #expect(acme == acme.sorted() && globex == globex.sorted())
        #expect(
            acme.contains { $0.hasPrefix("organization:org-acme ") }
                && acme.contains { $0.hasPrefix("tracking:u-ann/acc-acme-1 ") })
        for kind in ["user:", "account:", "contact:", "task:"] {
            #expect(acme.contains { $0.hasPrefix(kind) }, "\(kind)")
        }
        #expect(acme.allSatisfy { !$0.contains("globex") && !$0.contains("u-dee") && !$0.contains("u-eli") })
        #expect(globex.allSatisfy { !$0.contains("acme") })
        #expect(Set(acme).isDisjoint(with: globex))
        // The seed has no dangling ids: the two organizations split every record between them.
        let all = harness.server.model.read { server in
            server.state.changes.compactMap { if case .record(let r) = $0 { r.line } else { nil } }
        }
        #expect((acme + globex).sorted() == all.sorted())

        let account = try #require(try await harness.accountIds(token: ada.token).first)
        let save = try await post(
            harness, Self.saveTask,
            variables: ["input": task("6f1c2a7e-0000-4000-8000-00000000e002", on: account, "state")],
            token: ada.token, headers: ["Whalesim-Protocol": "2"])
        let written = try #require(try mutations(save.json).first).written
        let now = try await modelState(harness, token: ada.token)
        #expect(!written.isEmpty && Set(written).isSubset(of: now), "\(written)")
        #expect(try await modelState(harness, token: eve.token) == globex, "another organization's state is untouched")
        await harness.stop()
    }

    @Test func mutationsWithTheHeaderCarryTheirRepliesAndWrittenLines() async throws {
        let harness = try await ServerHarness.start()
        let ada = try await harness.login(ServerHarness.ada)
        let header = ["Whalesim-Protocol": "2"]
        let board = try await snapshot(harness, nil, token: ada.token)
        let account = try #require(board.accounts.first)
        let saveAccounts =
            "mutation M($input: [NewAccount!]!) { saveAccounts(senderID: \"runner-1\", input: $input) { id state } }"
        func card(_ state: String) -> [String: Any] {
            ["input": [["id": account.id, "salesforceID": account.salesforceID, "name": account.name, "state": state]]]
        }

        let first = try await post(harness, saveAccounts, variables: card("Worked"), token: ada.token, headers: header)
        let second = try await post(harness, saveAccounts, variables: card("Ready"), token: ada.token, headers: header)
        #expect(errors(first.json).isEmpty && errors(second.json).isEmpty, "\(first.body) \(second.body)")
        #expect(first.json["data"] != nil, "the original data is still there")
        let one = try mutations(first.json), two = try mutations(second.json)
        #expect(one.count == 1 && two.count == 1)
        #expect(one[0].reply.order < two[0].reply.order)
        let savedAccount = try #require(two[0].reply.records.first)
        guard case .account(let saved) = savedAccount else { Issue.record("not an account: \(savedAccount)"); return }
        #expect(saved.state == "Ready")
        #expect(two[0].written == [savedAccount.line])
        #expect(
            two[0].reply.updates.map(\.poolId) == [ada.organizationId] && two[0].reply.updates[0].seq == board.seq + 2)

        // saveTask, then an assignment entry on it: the entry and the reassigned task are written.
        let taskId = "6f1c2a7e-0000-4000-8000-00000000e003"
        let task = try await post(
            harness, Self.saveTask, variables: ["input": self.task(taskId, on: account.id, "header")], token: ada.token,
            headers: header)
        let taskEntry = try #require(try mutations(task.json).first)
        #expect(taskEntry.reply.order == two[0].reply.order + 1)
        #expect(taskEntry.written.count == 1 && taskEntry.written[0].hasPrefix("task:\(taskId) "))
        #expect(taskEntry.written == taskEntry.reply.records.map(\.line))
        let assign = try await post(
            harness, "mutation A($input: NewTaskAssignmentEntry!) { createTaskAssignmentEntry(input: $input) { id } }",
            variables: ["input": ["taskId": taskId, "assignedBy": ada.userId, "assignedTo": ada.userId]],
            token: ada.token, headers: header)
        #expect(errors(assign.json).isEmpty, "\(assign.body)")
        let assignEntry = try #require(try mutations(assign.json).first)
        #expect(assignEntry.reply.order == taskEntry.reply.order + 1)
        #expect(
            assignEntry.written.count == 2 && assignEntry.written.contains { $0.hasPrefix("assignment:") }
                && assignEntry.written.contains { $0.hasPrefix("task:\(taskId) ") && $0.contains(ada.userId) })
        #expect(assignEntry.written == assignEntry.reply.records.map(\.line).sorted())

        // Without the header, or with another value: the original response, no `extensions`.
        for headers in [[:], ["Whalesim-Protocol": "1"], ["Whalesim-Protocol": "true"]] {
            let plain = try await post(
                harness, saveAccounts, variables: card("Worked"), token: ada.token, headers: headers)
            #expect(errors(plain.json).isEmpty && plain.json["data"] != nil)
            #expect(plain.json["extensions"] == nil && !plain.body.contains("extensions"), "\(headers): \(plain.body)")
        }
        await harness.stop()
    }

    @Test func oneEntryPerAppliedModelMutationInExecutionOrder() async throws {
        let harness = try await ServerHarness.start()
        let ada = try await harness.login(ServerHarness.ada)
        let eve = try await harness.login(ServerHarness.eve)
        let header = ["Whalesim-Protocol": "2"]

        // Refused (another organization's account): an error, and no entry.
        let refused = try await post(
            harness, Self.saveTask,
            variables: ["input": task("6f1c2a7e-0000-4000-8000-00000000e004", on: "acc-acme-1", "mole")],
            token: eve.token, headers: header)
        #expect(!errors(refused.json).isEmpty)
        #expect(try mutations(refused.json).isEmpty, "\(refused.body)")

        // Two saves around a saveNote (an OT op, not a model mutation): two entries, in order.
        let account = try #require(try await harness.accountIds(token: ada.token).first)
        let both = try await post(
            harness,
            """
            mutation B($a: SaveTask!, $b: SaveTask!, $note: NewNote!) {
              a: saveTask(input: $a) { id }
              n: saveNote(input: $note) { content }
              b: saveTask(input: $b) { id }
            }
            """,
            variables: [
                "a": task("6f1c2a7e-0000-4000-8000-00000000e005", on: account, "a"),
                "b": task("6f1c2a7e-0000-4000-8000-00000000e006", on: account, "b"),
                "note": ["id": account, "accountID": account, "content": "hello"],
            ],
            token: ada.token, headers: header)
        #expect(errors(both.json).isEmpty, "\(both.body)")
        let entries = try mutations(both.json)
        #expect(entries.count == 2)
        #expect(
            entries.map { $0.written.first?.hasPrefix("task:6f1c2a7e-0000-4000-8000-00000000e005 ") ?? false } == [
                true, false,
            ])
        #expect(entries.count == 2 && entries[0].reply.order + 1 == entries[1].reply.order)

        // A query with the header: an empty list, so the runner can tell "none ran" from "not asked".
        let query = try await post(harness, "{ accounts { id } }", token: ada.token, headers: header)
        #expect(try mutations(query.json).isEmpty)
        await harness.stop()
    }
}
