import Foundation
import WhaleProtocol

/// The model cases, over GraphQL and the pool sockets as PROTOCOL.md §1–2 describe them: each
/// mutation is visible to the queries and sends one `resourceUpdate` (carrying the record's id
/// and the mutation's `senderID`) to every socket of its pool (the organization's for accounts,
/// the account's for contacts, tasks and assignments) and to no other pool.
enum ModelCases {
    static let all: [ConformCase] = [
        ConformCase(
            "model.move-account",
            "Moving a card (saveAccounts with a new state) reaches the organization pool as a resourceUpdate naming the account and the sender, and the board query reads the new column."
        ) { c async throws(ConformFailure) in
            let ann = try await c.login(.member)
            let board = try await c.socket(.colleague, pool: ann.organizationId, name: "board")
            try await c.poolReady([board])
            let account = try await c.freshAccountRecord()
            try await c.track(account, tracked: true)
            var input = account.input
            input["state"] = "Worked"
            _ = try await c.graphQL(
                .member,
                "mutation($input: [NewAccount!]!, $senderID: ID) { saveAccounts(input: $input, senderID: $senderID) { id state } }",
                variables: ["input": [input], "senderID": "conform-mover"], what: "saveAccounts (the move)")
            try await c.expectUpdate(
                on: board, id: account.id, sender: "conform-mover", what: "the move of account \(account.id)")
            let rows =
                try await c.graphQL(.member, "query { accounts { id state } }", what: "accounts")["accounts"]
                as? [[String: Any]] ?? []
            let state = rows.first { $0["id"] as? String == account.id }?["state"] as? String
            try c.expect(
                state == "Worked",
                "after the move the board must read state \"Worked\" for \(account.id); it reads \(state.map { "\"\($0)\"" } ?? "no such card")"
            )
        },
        ConformCase(
            "model.task-create-complete-delete",
            "A task created, completed and deleted (saveTask with done, then deletedAt) sends a resourceUpdate to the account pool each time; the task list shows it, then done, then not at all."
        ) { c async throws(ConformFailure) in
            let account = try await c.freshAccount()
            let page = try await c.socket(.colleague, pool: account, name: "page")
            try await c.poolReady([page])
            let taskId = UUID().uuidString.lowercased()
            var task: [String: Any] = [
                "id": taskId, "createdAt": ModelCases.now(), "associatedTo": account, "description": "call back",
                "done": false, "type": "call",
            ]
            let save =
                "mutation($input: SaveTask!, $senderID: ID) { saveTask(input: $input, senderID: $senderID) { id } }"
            let list = "query($a: ID!) { tasks(associatedTo: $a) { id done } }"
            for step in ["create", "complete", "delete"] {
                if step == "complete" { task["done"] = true }
                if step == "delete" { task["deletedAt"] = ModelCases.now() }
                _ = try await c.graphQL(
                    .member, save, variables: ["input": task, "senderID": "conform-\(step)"], what: "saveTask (\(step))"
                )
                try await c.expectUpdate(on: page, id: taskId, sender: "conform-\(step)", what: "the task's \(step)")
                let tasks =
                    try await c.graphQL(.member, list, variables: ["a": account], what: "tasks")["tasks"]
                    as? [[String: Any]] ?? []
                let row = tasks.first { $0["id"] as? String == taskId }
                switch step {
                case "create":
                    try c.expect(
                        row?["done"] as? Bool == false,
                        "after create the task list must show \(taskId), not done; it shows \(String(describing: row))")
                case "complete":
                    try c.expect(
                        row?["done"] as? Bool == true,
                        "after complete the task list must show \(taskId) done; it shows \(String(describing: row))")
                default:
                    try c.expect(
                        row == nil,
                        "after delete (deletedAt set) the task list must not show \(taskId); it shows \(String(describing: row))"
                    )
                }
            }
        },
        ConformCase(
            "model.assignment",
            "An account assignment entry is listed by accountAssignmentEntries and announced to the account pool."
        ) { c async throws(ConformFailure) in
            let ann = try await c.login(.member), bo = try await c.login(.colleague)
            let account = try await c.freshAccount()
            let page = try await c.socket(.colleague, pool: account, name: "page")
            try await c.poolReady([page])
            let created = try await c.graphQL(
                .member,
                "mutation($input: NewAccountAssignmentEntry!, $senderID: ID) { createAccountAssignmentEntry(input: $input, senderID: $senderID) { id } }",
                variables: [
                    "input": ["accountId": account, "assignedBy": ann.userId, "assignedTo": bo.userId],
                    "senderID": "conform-assign",
                ],
                what: "createAccountAssignmentEntry")
            guard let entry = (created["createAccountAssignmentEntry"] as? [String: Any])?["id"] as? String else {
                throw ConformFailure("createAccountAssignmentEntry returned no id: \(created)")
            }
            try await c.expectUpdate(on: page, id: entry, sender: "conform-assign", what: "the assignment entry")
            let entries =
                try await c.graphQL(
                    .member, "query($a: ID!) { accountAssignmentEntries(accountID: $a) { id assignedTo } }",
                    variables: ["a": account], what: "accountAssignmentEntries")["accountAssignmentEntries"]
                as? [[String: Any]] ?? []
            let row = entries.first { $0["id"] as? String == entry }
            try c.expect(
                row?["assignedTo"] as? String == bo.userId,
                "accountAssignmentEntries must list \(entry) assigned to \(bo.userId); it lists \(entries)")
        },
        ConformCase(
            "model.tracking",
            "Tracking is per user: a tracked account is on its tracker's board only, and untracking takes it off."
        ) { c async throws(ConformFailure) in
            let account = try await c.freshAccountRecord()
            try await c.track(account, tracked: true)
            let mine = try await c.boardIds(.member), theirs = try await c.boardIds(.colleague)
            try c.expect(
                mine.contains(account.id),
                "after tracking, the tracker's accounts must list \(account.id); they list \(mine.count) others")
            try c.expect(
                !theirs.contains(account.id),
                "another user's accounts must not list \(account.id), which only the member tracks")
            try await c.track(account, tracked: false)
            let after = try await c.boardIds(.member)
            try c.expect(
                !after.contains(account.id), "after untracking, the accounts query must not list \(account.id)")
        },
        ConformCase(
            "model.resource-update-each-pool-member",
            "A contact saved on an account reaches every socket of that account's pool exactly once (two users, one of them on two sockets), naming the contact and the sender."
        ) { c async throws(ConformFailure) in
            let account = try await c.freshAccount()
            let sockets = [
                try await c.socket(.member, pool: account, name: "ann"),
                try await c.socket(.colleague, pool: account, name: "bo1"),
                try await c.socket(.colleague, pool: account, name: "bo2"),
            ]
            try await c.poolReady(sockets)
            let contact = try await c.saveContact(on: account, sender: "conform-each")
            for socket in sockets {
                try await c.expectUpdate(on: socket, id: contact, sender: "conform-each", what: "the contact save")
                let again = await socket.take(within: c.target.quietPeriod) {
                    if case .resourceUpdate(let id, _, _) = $0.message { return id == contact }; return false
                }
                try c.expect(again == nil, "\(socket.name) got the contact's resourceUpdate twice")
            }
        },
        ConformCase(
            "model.pool-isolation",
            "A contact saved on one account reaches no other pool: not another account's, not the organization's board, not another organization's."
        ) { c async throws(ConformFailure) in
            let ann = try await c.login(.member), dee = try await c.login(.outsider)
            let x = try await c.freshAccount(), y = try await c.freshAccount()
            let onX = try await c.socket(.colleague, pool: x, name: "x")
            let others = [
                try await c.socket(.colleague, pool: y, name: "y"),
                try await c.socket(.colleague, pool: ann.organizationId, name: "board"),
                try await c.socket(.outsider, pool: dee.organizationId, name: "outsider"),
            ]
            try await c.poolReady([onX] + others)
            let contact = try await c.saveContact(on: x, sender: "conform-isolated")
            try await c.expectUpdate(on: onX, id: contact, sender: "conform-isolated", what: "the contact save")
            for socket in others {
                let leaked = await socket.take(within: c.target.quietPeriod) {
                    if case .resourceUpdate(let id, _, _) = $0.message { return id == contact }; return false
                }
                try c.expect(leaked == nil, "the contact's resourceUpdate leaked to \(socket.name)'s pool")
            }
        },
        ConformCase(
            "model.pool-joined-seq",
            "A protocol-2 socket in a pool is told the pool's seq when it joins (poolJoined), the next update carries the seq after it, and a socket joining later is told that one: a page can tell whether its fetch covers what was made before its socket was in the pool.",
            requires: [.protocol2]
        ) { c async throws(ConformFailure) in
            let account = try await c.freshAccount()
            func marker(_ socket: ConformSocket) async throws(ConformFailure) -> Int {
                let found = await socket.take {
                    if case .poolJoined(let pool, _) = $0.message { return pool == account }; return false
                }
                guard case .poolJoined(_, let seq)? = found?.message else {
                    throw ConformFailure(
                        "\(socket.name) joined pool \(account) but got no poolJoined {poolId: \(account), seq} within \(c.target.timeout); \(socket.recent())"
                    )
                }
                return seq
            }
            let first = try await c.socket(.colleague, pool: account, name: "first")
            let before = try await marker(first)
            try c.expect(
                before == 0, "a fresh account's pool has had no update, so poolJoined must say seq 0; it says \(before)"
            )
            let contact = try await c.saveContact(on: account, sender: "conform-joined")
            let update = await first.take {
                if case .resourceUpdate(let id, _, _) = $0.message { return id == contact }; return false
            }
            guard case .resourceUpdate(_, _, let carried?)? = update?.message else {
                throw ConformFailure(
                    "the contact save must send \(first.name) a resourceUpdate carrying its record and seq; got \(String(describing: update)); \(first.recent())"
                )
            }
            try c.expect(
                carried.seq == before + 1,
                "the first update after a join at seq \(before) must carry seq \(before + 1); it carries \(carried.seq)"
            )
            let later = try await c.socket(.member, pool: account, name: "later")
            let after = try await marker(later)
            try c.expect(
                after == carried.seq,
                "a socket joining after the update at seq \(carried.seq) must be told seq \(carried.seq); it is told \(after)"
            )
        },
    ]

    static func now() -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: Date())
    }
}

/// An account the case created: its id and the input that upserts it again.
struct CreatedAccount: Sendable {
    let id: String
    let salesforceID: String
    let name: String
    var input: [String: Any] { ["id": id, "salesforceID": salesforceID, "name": name] }
}

extension CaseContext {
    /// Waits until the server has put each socket in its pool: the protocol has no answer to an
    /// upgrade, so a mutation made at once could race the pool join. Protocol 2: a message of an
    /// unknown type earns an `error`, which the server only reads once the socket is in its pool.
    /// The original answers nothing, so there the suite waits its quiet period.
    func poolReady(_ sockets: [ConformSocket]) async throws(ConformFailure) {
        guard v2 else {
            try? await Task.sleep(for: target.quietPeriod)
            return
        }
        for (index, socket) in sockets.enumerated() {
            let id = "\(caseId)-ready-\(index)"
            socket.sendRaw(#"{"messageId":"\#(id)","type":"whalesimConformReady","data":{}}"#)
            guard await socket.takeError(inReplyTo: id) != nil else {
                throw ConformFailure(
                    "\(socket.name) got no answer (an unknownType error) to a message of an unknown type; \(socket.recent())"
                )
            }
        }
    }

    func track(_ account: CreatedAccount, tracked: Bool) async throws(ConformFailure) {
        _ = try await graphQL(
            .member,
            "mutation($input: [AccountTrackingChange!]!) { applyAccountTrackingChanges(input: $input) { id } }",
            variables: ["input": [["account": account.input, "newState": tracked ? "tracked" : "untracked"]]],
            what: "applyAccountTrackingChanges (\(tracked ? "track" : "untrack"))")
    }

    func boardIds(_ who: Who) async throws(ConformFailure) -> [String] {
        (try await graphQL(who, "query { accounts { id } }", what: "accounts")["accounts"] as? [[String: Any]] ?? [])
            .compactMap { $0["id"] as? String }
    }

    /// Saves a new contact on `account` as the member; its id.
    func saveContact(on account: String, sender: String) async throws(ConformFailure) -> String {
        let salesforceID = "conform-\(run.tag)-c\(run.accounts.next())"
        let saved = try await graphQL(
            .member,
            "mutation($input: [NewContact!]!, $senderID: ID) { saveContacts(input: $input, senderID: $senderID) { id salesforceID } }",
            variables: [
                "input": [
                    ["salesforceID": salesforceID, "firstName": "Conform", "lastName": "Case", "accountID": account]
                ], "senderID": sender,
            ],
            what: "saveContacts")
        guard
            let id = (saved["saveContacts"] as? [[String: Any]])?.first(where: {
                $0["salesforceID"] as? String == salesforceID
            })?["id"] as? String
        else {
            throw ConformFailure("saveContacts returned no contact \(salesforceID): \(saved)")
        }
        return id
    }

    /// The `resourceUpdate` for record `id` from `sender` must arrive on `socket`.
    func expectUpdate(on socket: ConformSocket, id: String, sender: String, what: String) async throws(ConformFailure) {
        let update = await socket.take {
            if case .resourceUpdate(let r, let s, _) = $0.message { return r == id && s == sender }; return false
        }
        if update == nil {
            throw ConformFailure(
                "\(what) must send \(socket.name)'s pool a resourceUpdate {resourceId: \(id), senderId: \(sender)}; none came within \(target.timeout); \(socket.recent())"
            )
        }
    }
}
