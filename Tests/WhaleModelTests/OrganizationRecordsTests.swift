import Testing
import WhaleProtocol
@testable import WhaleModel

/// `organizationRecords`: the final state the load runner reads, one organization at a time.
@Suite struct OrganizationRecordsTests {
    func records(_ model: ModelServer) -> [ModelRecord] {
        model.state.changes.compactMap { if case .record(let r) = $0 { r } else { nil } }
    }

    @Test func theTwoOrganizationsSplitEveryRecordOfTheSeed() throws {
        let model = try Fixture.server()
        let acme = try model.organizationRecords(Fixture.ann)
        let globex = try model.organizationRecords(Fixture.dee)
        #expect(acme.map(\.key) == acme.map(\.key).sorted())
        #expect(Set(acme.map(\.key)).isDisjoint(with: globex.map(\.key)))
        #expect(Set(acme + globex) == Set(records(model)))
        #expect(Set(acme.map(\.recordType)) == ["organization", "user", "account", "contact", "task", "tracking"])
        #expect(acme.allSatisfy { model.organizationId(of: $0) == "org-acme" })
        #expect(try model.organizationRecords(Fixture.bo) == acme, "every member sees the same organization")
    }

    @Test func writtenRecordsJoinTheirOrganizationAndDanglingOnesNone() throws {
        var model = try Fixture.server()
        let task = TaskItem(id: "t-new", associatedTo: "acc-acme-2", description: "d", done: false, type: .call)
        _ = model.handle(.mutate(requestId: "r1", caller: Fixture.ann, senderID: nil, .saveTask(task)))
        _ = model.handle(
            .mutate(
                requestId: "r2", caller: Fixture.ann, senderID: nil,
                .createAssignment(kind: .task, targetId: "t-new", assignedBy: "u-ann", assignedTo: "u-bo")))
        let acme = try model.organizationRecords(Fixture.ann)
        #expect(acme.contains { $0.key == "task:t-new" })
        let entry = try #require(acme.first { $0.recordType == "assignment" })
        #expect(model.organizationId(of: entry) == "org-acme")
        #expect(
            try !model.organizationRecords(Fixture.dee).contains {
                $0.key == "task:t-new" || $0.recordType == "assignment"
            })

        // A contact whose account is gone belongs to nobody, so nobody is shown it.
        var state = model.state
        state.contacts["con-lost"] = Contact(
            id: "con-lost", accountID: "acc-gone", salesforceID: "s", firstName: "a", lastName: "b")
        let orphaned = ModelServer(state: state)
        #expect(orphaned.organizationId(of: .contact(state.contacts["con-lost"]!)) == nil)
        for caller in [Fixture.ann, Fixture.dee] {
            #expect(try !orphaned.organizationRecords(caller).contains { $0.key == "contact:con-lost" })
        }
    }

    @Test func aCallerWhoIsNotAMemberIsRefused() throws {
        let model = try Fixture.server()
        #expect(throws: ModelError.self) {
            try model.organizationRecords(Caller(userId: "u-ann", organizationId: "org-globex"))
        }
        #expect(throws: ModelError.self) {
            try model.organizationRecords(Caller(userId: "u-nobody", organizationId: "org-acme"))
        }
    }
}
