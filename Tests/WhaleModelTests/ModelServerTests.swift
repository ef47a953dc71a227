import Testing
import WhaleProtocol
@testable import WhaleModel

/// The model server as a state machine: events in, exact actions out.
@Suite struct ModelServerTests {
    @Test func seedLoadsIntoTwoOrganizations() throws {
        let model = try Fixture.server()
        #expect(model.state.organizations.count == 2)
        let view = try model.organization(Fixture.ann)
        #expect(view.organization.name == "Acme Sales")
        #expect(view.users.map(\.id) == ["u-ann", "u-bo", "u-cy"])
        #expect(try model.accounts(Fixture.ann).map(\.id) == ["acc-acme-1", "acc-acme-2"])
        #expect(model.credential(email: "bo@acme.test")?.passwordHash == "hash:whale-bo-1")
        #expect(try model.tasks(associatedTo: "acc-acme-1", Fixture.ann).count == 2)
    }

    @Test func kanbanStringsAreExact() throws {
        #expect(KanbanState.allCases.map(\.rawValue) == ["Ready", "In Progress", "Worked", "Opportunity"])
        #expect(KanbanState.contactColumns.map(\.rawValue) == ["Ready", "In Progress", "Worked"])
        #expect(KanbanState.reading(nil) == .ready)
        #expect(KanbanState.reading("in progress") == .ready)
        #expect(KanbanState.reading("In Progress") == .inProgress)

        var model = try Fixture.server()
        var card = AccountInput(model.state.accounts["acc-acme-1"]!)
        card.state = "Done"
        let refused = model.handle(.mutate(requestId: "r1", caller: Fixture.ann, senderID: "c1", .saveAccounts([card])))
        #expect(
            refused == [
                .reply(
                    requestId: "r1",
                    .failure(.badInput("account state \"Done\" is not one of Ready, In Progress, Worked, Opportunity")))
            ])
        var contact = ContactInput(model.state.contacts["con-acme-1"]!)
        contact.state = KanbanState.opportunity.rawValue
        let refusedContact = model.handle(
            .mutate(requestId: "r2", caller: Fixture.ann, senderID: "c1", .saveContacts([contact])))
        #expect(refusedContact.reply.map { if case .failure(.badInput) = $0 { true } else { false } } == true)
        // The account JSON carries the exact column string.
        card.state = KanbanState.inProgress.rawValue
        let json = ModelRecord.account(card.account(id: "x", organizationId: "org-acme")).wireJSON
        #expect(json["state"] == .string("In Progress"))
    }

    /// One card move, three sockets in the organization pool: persist, then one update per socket
    /// in client id order (the sender's too; protocol 2 carries the record and the seq), then the reply.
    @Test func aMoveIsPersistedThenBroadcastThenAnswered() throws {
        var model = try Fixture.server()
        // A protocol-2 join is told where its pool stands (`poolJoined`, seq 0 before any update); the original's is not.
        func marker(_ c: ClientID, _ pool: String) -> [ModelServer.Action] {
            [
                .send(
                    c,
                    ServerEnvelope(
                        senderId: "srv", messageId: "j:\(c.rawValue)", message: .poolJoined(poolId: pool, seq: 0)))
            ]
        }
        #expect(
            model.handle(.joinPool("c3", poolId: "org-acme", caller: Fixture.bo, protocolVersion: .v2))
                == marker("c3", "org-acme"))
        #expect(
            model.handle(.joinPool("c1", poolId: "org-acme", caller: Fixture.ann, protocolVersion: .v2))
                == marker("c1", "org-acme"))
        #expect(model.handle(.joinPool("c2", poolId: "org-acme", caller: nil, protocolVersion: .original)) == [])
        #expect(
            model.handle(.joinPool("c9", poolId: "acc-acme-1", caller: Fixture.ann, protocolVersion: .v2))
                == marker("c9", "acc-acme-1"))

        let actions = model.handle(
            .mutate(requestId: "r1", caller: Fixture.ann, senderID: "c1", model.move("acc-acme-1", to: .worked)))
        var moved = model.state.accounts["acc-acme-1"]!
        #expect(moved.state == "Worked")
        moved.state = "Worked"
        let record = ModelRecord.account(moved)
        let carried = RecordUpdate(recordType: "account", record: record.wireJSON, seq: 1)
        #expect(
            actions == [
                .persist([.record(record), .poolSeq(poolId: "org-acme", seq: 1), .counters(order: 1, nextId: 1000)]),
                .send(
                    "c1",
                    ServerEnvelope(
                        senderId: "srv", messageId: "m1",
                        message: .resourceUpdate(resourceId: "acc-acme-1", senderId: "c1", update: carried))),
                .send(
                    "c2",
                    ServerEnvelope(
                        senderId: "srv", messageId: "m2",
                        message: .resourceUpdate(resourceId: "acc-acme-1", senderId: "c1"))),
                .send(
                    "c3",
                    ServerEnvelope(
                        senderId: "srv", messageId: "m3",
                        message: .resourceUpdate(resourceId: "acc-acme-1", senderId: "c1", update: carried))),
                .reply(
                    requestId: "r1",
                    .success(
                        MutationReply(
                            order: 1, records: [record],
                            updates: [PoolUpdate(poolId: "org-acme", seq: 1, record: record)]))),
            ])
    }

    @Test func persistComesBeforeAnySendForEveryMutation() throws {
        var model = try Fixture.server()
        _ = model.handle(.joinPool("c1", poolId: "org-acme", caller: Fixture.ann, protocolVersion: .v2))
        _ = model.handle(.joinPool("c2", poolId: "acc-acme-1", caller: Fixture.bo, protocolVersion: .v2))
        let task = TaskItem(id: "t-new", associatedTo: "acc-acme-1", description: "Demo", done: false, type: .call)
        let mutations: [Mutation] = [
            model.move("acc-acme-2", to: .opportunity),
            .saveTask(task),
            .createAssignment(kind: .task, targetId: "t-new", assignedBy: "u-ann", assignedTo: "u-cy"),
            .createAssignment(kind: .account, targetId: "acc-acme-1", assignedBy: "u-ann", assignedTo: "u-cy"),
            .applyAccountTrackingChanges([
                TrackingChange(account: AccountInput(model.state.accounts["acc-acme-3"]!), newState: .tracked)
            ]),
        ]
        for (i, mutation) in mutations.enumerated() {
            let actions = model.handle(.mutate(requestId: "r\(i)", caller: Fixture.ann, senderID: "cx", mutation))
            let persist = try #require(actions.firstIndex { if case .persist = $0 { true } else { false } })
            let firstSend = actions.firstIndex { if case .send = $0 { true } else { false } }
            #expect(firstSend.map { $0 > persist } ?? true, "\(mutation.name)")
            #expect(!actions.sends.isEmpty, "\(mutation.name) told no pool")
            if case .reply = actions.last {} else { Issue.record("\(mutation.name): the reply is not last") }
        }
        #expect(model.state.tasks["t-new"]?.assignedTo == "u-cy")
        #expect(model.state.accounts["acc-acme-1"]?.assignedTo == "u-cy")
        #expect(try model.accounts(Fixture.ann).map(\.id) == ["acc-acme-1", "acc-acme-2", "acc-acme-3"])
        #expect(try model.taskAssignmentEntries(taskID: "t-new", Fixture.bo).map(\.assignedTo) == ["u-cy"])
    }

    @Test func seqCountsPerPool() throws {
        var model = try Fixture.server()
        func save(_ t: TaskItem) -> [PoolUpdate] {
            guard
                case .success(let reply)? = model.handle(
                    .mutate(requestId: "r", caller: Fixture.bo, senderID: nil, .saveTask(t))
                ).reply
            else { return [] }
            return reply.updates
        }
        let a = TaskItem(id: "t-a", associatedTo: "acc-acme-1", description: "a", done: false, type: .email)
        let b = TaskItem(id: "t-b", associatedTo: "acc-acme-2", description: "b", done: false, type: .admin)
        #expect(save(a).map(\.seq) == [1])
        #expect(save(b).map(\.seq) == [1])
        var done = a; done.done = true
        #expect(save(done) == [PoolUpdate(poolId: "acc-acme-1", seq: 2, record: .task(done))])
        _ = model.handle(
            .mutate(requestId: "m", caller: Fixture.bo, senderID: nil, model.move("acc-acme-1", to: .worked)))
        #expect(model.poolSeq("org-acme") == 1)
        #expect(model.poolSeq("acc-acme-1") == 2)
        // Soft delete: the task stays stored but is no longer listed.
        var deleted = done; deleted.deletedAt = "2026-11-22T19:00:00Z"
        #expect(save(deleted).map(\.seq) == [3])
        #expect(try model.tasks(associatedTo: "acc-acme-1", Fixture.bo).map(\.id).contains("t-a") == false)
        #expect(model.state.tasks["t-a"]?.isDeleted == true)
        // A socket joining now is told the pool's seq, so its page can tell whether a fetch covers it.
        let join = model.handle(.joinPool("c5", poolId: "acc-acme-1", caller: Fixture.bo, protocolVersion: .v2))
        #expect(
            join == [
                .send(
                    "c5",
                    ServerEnvelope(
                        senderId: "srv", messageId: "j:c5", message: .poolJoined(poolId: "acc-acme-1", seq: 3)))
            ])
        // A refused join (another organization's pool) gets its error and no marker.
        let refused = model.handle(.joinPool("c6", poolId: "acc-globex-1", caller: Fixture.bo, protocolVersion: .v2))
        #expect(refused.count == 1)
        if case .send(_, let e)? = refused.first, case .poolJoined = e.message {
            Issue.record("a refused join got a marker")
        }
    }

    /// Nothing crosses organizations: a Globex caller gets `notFound` for every Acme id, exactly
    /// as for an id that does not exist, and nothing is applied.
    @Test func organizationsAreIsolated() throws {
        var model = try Fixture.server()
        let dee = Fixture.dee
        let before = model.state
        #expect(throws: ModelError.notFound("account acc-acme-1")) { try model.contacts(accountID: "acc-acme-1", dee) }
        #expect(throws: ModelError.notFound("account acc-acme-1")) { try model.tasks(associatedTo: "acc-acme-1", dee) }
        #expect(throws: ModelError.notFound("account acc-acme-1")) {
            try model.accountAssignmentEntries(accountID: "acc-acme-1", dee)
        }
        #expect(throws: ModelError.notFound("contact con-acme-1")) {
            try model.contactAssignmentEntries(contactID: "con-acme-1", dee)
        }
        #expect(throws: ModelError.notFound("task 8f1d2c3a-0001-4a5b-9c6d-acme00000001")) {
            try model.taskAssignmentEntries(taskID: "8f1d2c3a-0001-4a5b-9c6d-acme00000001", dee)
        }
        #expect(throws: ModelError.notFound("account acc-acme-1")) {
            try model.answer(.accountPage(accountID: "acc-acme-1"), dee)
        }
        #expect(throws: ModelError.notFound("account no-such")) { try model.contacts(accountID: "no-such", dee) }
        #expect(throws: ModelError.notFound("account acc-acme-1")) { try model.authorizeNote("acc-acme-1", dee) }
        #expect(throws: Never.self) { try model.authorizeNote("acc-globex-1", dee) }
        #expect(try model.organization(dee).users.allSatisfy { $0.organizationId == "org-globex" })
        #expect(try model.accounts(dee).allSatisfy { $0.organizationId == "org-globex" })

        let acmeTask = model.state.tasks["8f1d2c3a-0001-4a5b-9c6d-acme00000001"]!
        var hijack = acmeTask; hijack.associatedTo = "acc-globex-1"
        let refused: [Mutation] = [
            .saveContacts([ContactInput(model.state.contacts["con-acme-1"]!)]),
            .saveTask(TaskItem(id: "t-x", associatedTo: "acc-acme-1", description: "x", done: false, type: .call)),
            .saveTask(hijack),
            .createAssignment(kind: .account, targetId: "acc-acme-1", assignedBy: "u-dee", assignedTo: "u-eli"),
            .createAssignment(kind: .contact, targetId: "con-acme-1", assignedBy: "u-dee", assignedTo: "u-eli"),
            .createAssignment(kind: .task, targetId: acmeTask.id, assignedBy: "u-dee", assignedTo: "u-eli"),
            .createAssignment(kind: .account, targetId: "acc-globex-1", assignedBy: "u-dee", assignedTo: "u-bo"),
            .saveAccounts([AccountInput(salesforceID: "new", name: "New", assignedTo: "u-ann")]),
        ]
        for mutation in refused {
            let actions = model.handle(.mutate(requestId: "r", caller: dee, senderID: "g1", mutation))
            #expect(actions.count == 1, "\(mutation.name)")
            guard case .failure(.notFound)? = actions.reply else {
                Issue.record("\(mutation.name): \(actions)"); continue
            }
        }
        // Saving an Acme salesforceID from Globex makes a Globex account; Acme's is untouched.
        let same = model.handle(
            .mutate(
                requestId: "s", caller: dee, senderID: nil,
                .saveAccounts([AccountInput(salesforceID: "0015g00000AcmeA01", name: "Copy")])))
        guard case .success(let reply)? = same.reply, case .account(let copy) = reply.records.first else {
            Issue.record("\(same)"); return
        }
        #expect(copy.id != "acc-acme-1" && copy.organizationId == "org-globex")
        #expect(model.state.accounts["acc-acme-1"] == before.accounts["acc-acme-1"])
        #expect(
            model.state.contacts == before.contacts && model.state.tasks == before.tasks
                && model.state.assignments == before.assignments)
    }

    @Test func poolsOfAnotherOrganizationAreRefusedInProtocol2Only() throws {
        var model = try Fixture.server()
        let forbidden = model.handle(.joinPool("g1", poolId: "org-acme", caller: Fixture.dee, protocolVersion: .v2))
        #expect(
            forbidden == [
                .send(
                    "g1",
                    ServerEnvelope(
                        senderId: "srv", messageId: "e:join",
                        message: .error(ProtocolError(.forbidden, "org-acme is not a pool of your organization"))))
            ])
        let account = model.handle(.joinPool("g1", poolId: "acc-acme-1", caller: Fixture.dee, protocolVersion: .v2))
        #expect(account.errorCode == .forbidden)
        let anonymous = model.handle(.joinPool("g2", poolId: "org-globex", caller: nil, protocolVersion: .v2))
        #expect(anonymous.errorCode == .unauthorized)
        #expect(model.members(of: "org-acme").isEmpty && model.members(of: "acc-acme-1").isEmpty)
        // The original lets anyone in, silently (PROTOCOL.md §2: the token is never checked).
        #expect(model.handle(.joinPool("o1", poolId: "org-acme", caller: nil, protocolVersion: .original)) == [])
        #expect(model.members(of: "org-acme") == ["o1"])
        _ = model.handle(.leavePool("o1"))
        #expect(model.members(of: "org-acme").isEmpty)
    }

    @Test func badInputAppliesNothing() throws {
        var model = try Fixture.server()
        let before = model.state
        var good = AccountInput(model.state.accounts["acc-acme-2"]!)
        good.state = "Worked"
        var bad = AccountInput(model.state.accounts["acc-acme-1"]!)
        bad.state = "Won"
        let cases: [Mutation] = [
            .saveAccounts([good, bad]),
            .saveAccounts([AccountInput(salesforceID: "", name: "No id")]),
            .saveTask(TaskItem(id: "", associatedTo: "acc-acme-1", description: "x", done: false, type: .call)),
            .createAssignment(kind: .task, targetId: "", assignedBy: "u-ann", assignedTo: "u-bo"),
            .createUser(UserInput(email: "", firstName: "", lastName: "", isAdmin: false, passwordHash: "h")),
        ]
        for mutation in cases {
            let actions = model.handle(.mutate(requestId: "r", caller: Fixture.ann, senderID: nil, mutation))
            guard case .failure(.badInput)? = actions.reply, actions.count == 1 else {
                Issue.record("\(mutation.name): \(actions)"); continue
            }
        }
        #expect(model.state == before)
        // An unknown task type never gets this far: it does not decode.
        #expect(
            ModelRecord(
                recordType: "task",
                json: .object([
                    ("id", .string("t")), ("associatedTo", .string("a")), ("description", .string("")),
                    ("done", .bool(false)), ("type", .string("meeting")),
                ])) == nil)
    }

    @Test func callersMustExistAndOnlyAdminsCreateUsers() throws {
        var model = try Fixture.server()
        let ghost = Caller(userId: "u-ann", organizationId: "org-globex")
        #expect(throws: ModelError.self) { try model.accounts(ghost) }
        guard
            case .failure(.unauthorized)? = model.handle(
                .mutate(requestId: "r", caller: ghost, senderID: nil, model.move("acc-acme-1", to: .worked))
            ).reply
        else {
            Issue.record("a caller in the wrong organization was accepted"); return
        }
        let newUser = UserInput(
            email: "fay@acme.test", firstName: "Fay", lastName: "Ito", isAdmin: false, passwordHash: "h")
        guard
            case .failure(.forbidden)? = model.handle(
                .mutate(requestId: "r", caller: Fixture.bo, senderID: nil, .createUser(newUser))
            ).reply
        else {
            Issue.record("a non-admin created a user"); return
        }
        let created = model.handle(.mutate(requestId: "r", caller: Fixture.ann, senderID: nil, .createUser(newUser)))
        #expect(
            created.persisted.contains(
                .credential(Credential(userId: "u-1000", email: "fay@acme.test", passwordHash: "h"))))
        #expect(model.user(id: "u-1000")?.organizationId == "org-acme")
        let org = model.handle(
            .mutate(
                requestId: "o", caller: Fixture.dee, senderID: nil,
                .createOrganization(
                    id: nil, name: "Initech",
                    admin: UserInput(
                        email: "gus@initech.test", firstName: "Gus", lastName: "Roy", isAdmin: false, passwordHash: "h2"
                    ))))
        guard case .success(let reply)? = org.reply, case .organization(let initech) = reply.records.first else {
            Issue.record("\(org)"); return
        }
        let gus = try #require(model.credential(email: "gus@initech.test"))
        #expect(model.user(id: gus.userId)?.isAdmin == true && model.user(id: gus.userId)?.organizationId == initech.id)
    }

    /// A server rebuilt from the persisted changes (last per key, any order) is the live one.
    @Test func restoringFromPersistedChangesGivesTheLiveState() throws {
        var model = try Fixture.server()
        var log: [String: ModelChange] = [:]
        for change in try Fixture.seed().changes(hashing: { "hash:" + $0 }) { log[change.key] = change }
        let seed: UInt64 = 20_261_122
        var x = seed
        func next(_ n: Int) -> Int {
            x = x &* 6364136223846793005 &+ 1442695040888963407; return Int((x >> 33) % UInt64(n))
        }
        for i in 0..<200 {
            let accounts = ModelState.sorted(model.state.accounts).filter { $0.organizationId == "org-acme" }
            let tasks = ModelState.sorted(model.state.tasks).filter {
                model.state.accounts[$0.associatedTo]?.organizationId == "org-acme"
            }
            let mutation: Mutation
            switch next(5) {
            case 0: mutation = model.move(accounts[next(accounts.count)].id, to: KanbanState.allCases[next(4)])
            case 1:
                mutation = .saveTask(
                    TaskItem(
                        id: "t-\(i)", associatedTo: accounts[next(accounts.count)].id, description: "task \(i)",
                        done: false, type: .email))
            case 2:
                var t = tasks[next(tasks.count)]
                if next(2) == 0 { t.done.toggle() } else { t.deletedAt = "2026-11-22T19:\(i % 60)" }
                mutation = .saveTask(t)
            case 3:
                mutation = .createAssignment(
                    kind: .task, targetId: tasks[next(tasks.count)].id, assignedBy: "u-ann",
                    assignedTo: ["u-bo", "u-cy"][next(2)])
            default:
                mutation = .applyAccountTrackingChanges([
                    TrackingChange(
                        account: AccountInput(accounts[next(accounts.count)]),
                        newState: next(2) == 0 ? .tracked : .untracked)
                ])
            }
            for change in model.handle(
                .mutate(requestId: "r\(i)", caller: [Fixture.ann, Fixture.bo][next(2)], senderID: nil, mutation)
            ).persisted {
                log[change.key] = change
            }
        }
        let shuffled = log.values.shuffled()
        let restored = ModelServer(restoring: Array(shuffled))
        #expect(restored.state == model.state, "seed \(seed)")
        #expect(ModelServer(restoring: model.state.changes).state == model.state)
        #expect(model.state.order == 200)
    }
}
