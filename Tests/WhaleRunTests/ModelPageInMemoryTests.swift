import Foundation
import Testing
import WhaleModel
import WhaleProtocol
@testable import WhaleRun
@testable import WhaleSim

/// A ``ModelPage`` (the board) driven without a port: its pool socket and its GraphQL calls go
/// to an ``InMemoryModel`` whose real ``ModelServer`` answers. A reconnect refetches what the
/// page missed (the resync), an acknowledged mutation and a refused one are recorded for the
/// model checker as the live page records them, and the refused one rolls back.
@Suite struct ModelPageInMemoryTests {
    static let org = ModelWorld.organizationId

    /// One board page for `u1`, a second user `u2`, and the server.
    struct Rig {
        let model: InMemoryModel
        let recorder = LiveRecorder(clock: RunClock(), documentNames: ["acc-1"], initialTexts: [""], protocolVersion: 2)
        let metrics = LiveMetrics(clock: RunClock(), spillDirectory: nil)
        let page: ModelPage

        init() {
            let seed = ModelWorld.seed(spec: ModelSpec(boardClients: 2, accounts: 2), userIds: ["u1", "u2"])
            let callers = [
                "tok-u1": Caller(userId: "u1", organizationId: ModelPageInMemoryTests.org),
                "tok-u2": Caller(userId: "u2", organizationId: ModelPageInMemoryTests.org),
            ]
            model = InMemoryModel(seed: seed, callers: callers)
            let context = ModelPage.Context(
                network: model, token: "tok-u1", socketURL: "ws://memory/ws", protocolVersion: .v2,
                recorder: recorder, metrics: metrics, sockets: model.sockets)
            let client = ModelClient(
                clientId: ClientID("c001"), caller: callers["tok-u1"]!, page: .board,
                configuration: .init(protocolVersion: .v2))
            page = ModelPage(index: 0, client: client, context: context)
        }

        var shownByServer: [String] { (try? model.shown(.board, token: "tok-u1")) ?? [] }
        var shownByPage: [String] { page.client.view.map(\.line) }
        var events: [HistoryEvent] { recorder.history().entries.map(\.event) }

        func settle() async -> Bool { await eventually(step: model.pump) { page.isQuiet } }

        /// A card of the board moved by the other user, straight through the server.
        func otherUserMoves(_ account: Account, to column: KanbanState) async throws {
            var input = AccountInput(account)
            input.state = column.rawValue
            _ = try await model.mutate(.saveAccounts([input]), senderID: "c002", token: "tok-u2")
        }
    }

    static func account(_ view: [ModelRecord], _ id: String) -> Account? {
        view.lazy.compactMap { if case .account(let a) = $0, a.id == id { a } else { nil } }.first
    }

    @Test func aReconnectedPageRefetchesWhatItMissed() async throws {
        let rig = Rig()
        await rig.page.connect()
        #expect(await rig.settle())
        #expect(!rig.shownByPage.isEmpty)
        #expect(rig.shownByPage == rig.shownByServer)
        #expect(rig.model.reads == 1, "one read for the page's first open")
        // The socket goes; meanwhile the other user moves a card: the update reaches nobody here.
        rig.model.cut("c001")
        #expect(await eventually { !rig.page.isReady })
        let card = try #require(Self.account(rig.page.client.view, "acc-1"))
        let column = KanbanState.allCases.first { $0.rawValue != card.state }!
        try await rig.otherUserMoves(card, to: column)
        #expect(
            Self.account(rig.page.client.view, "acc-1")?.state == card.state, "the cached card, until the page is back")
        // The socket manager redials; the page shows what it had and refreshes: the move arrives.
        let back = await eventually(step: rig.model.pump) { rig.page.isQuiet && rig.model.reads >= 2 }
        #expect(back, "\(rig.page.unquietReason)")
        #expect(Self.account(rig.page.client.view, "acc-1")?.state == column.rawValue)
        #expect(rig.shownByPage == rig.shownByServer)
        #expect(rig.metrics.counterTotal("page_opens") == 2)
        #expect(rig.metrics.counterTotal("page_reads") == rig.model.reads)
    }

    @Test func anAcknowledgedMutationIsRecordedAndShown() async throws {
        let rig = Rig()
        await rig.page.connect()
        #expect(await rig.settle())
        let card = try #require(Self.account(rig.page.client.view, "acc-2"))
        var input = AccountInput(card)
        input.state = KanbanState.allCases.first { $0.rawValue != card.state }!.rawValue
        #expect(rig.page.submit(.saveAccounts([input])))
        #expect(await rig.settle())
        #expect(Self.account(rig.page.client.view, "acc-2")?.state == input.state)
        #expect(rig.shownByPage == rig.shownByServer)
        let events = rig.events
        #expect(events.contains { if case .modelInvoke(0, _, _) = $0 { true } else { false } })
        #expect(events.contains { if case .modelApply(0, _, _, let records) = $0 { !records.isEmpty } else { false } })
        #expect(events.contains { if case .modelAck(0, _, _) = $0 { true } else { false } })
    }

    @Test func aRefusedMutationIsRecordedAndRolledBack() async throws {
        let rig = Rig()
        await rig.page.connect()
        #expect(await rig.settle())
        let before = rig.shownByPage
        let card = try #require(Self.account(rig.page.client.view, "acc-1"))
        var input = AccountInput(card)
        input.state = "Nowhere"  // not a column: the server refuses it (badInput), applying nothing
        #expect(rig.page.submit(.saveAccounts([input])))
        #expect(await rig.settle())
        let events = rig.events
        #expect(events.contains { if case .modelInvoke(0, _, _) = $0 { true } else { false } })
        #expect(events.contains { if case .modelFailed(0, _, "badInput") = $0 { true } else { false } }, "\(events)")
        #expect(!events.contains { if case .modelAck = $0 { true } else { false } })
        #expect(rig.shownByPage == before, "rolled back")
        #expect(rig.shownByPage == rig.shownByServer)
        #expect(rig.metrics.counterTotal("model_refused") == 1)
    }
}
