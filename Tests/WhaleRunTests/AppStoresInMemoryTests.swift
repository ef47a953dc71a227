import Foundation
import Testing
import WhaleModel
@testable import WhaleRun
@testable import WhaleSim

/// The app's stores on a server without whalesim's extensions, driven without a port: their
/// GraphQL calls go to an ``InMemoryModel`` whose real ``ModelServer`` answers. A page opens
/// from storage and refreshes (cached, then fresh); a card move shows at once and is confirmed
/// or rolled back through ``Optimistic``, the one mechanism for optimistic changes.
@Suite struct AppStoresInMemoryTests {
    static let org = ModelWorld.organizationId

    struct Rig {
        let model: InMemoryModel
        let storage = AppStorage()
        let metrics = LiveMetrics(clock: RunClock(), spillDirectory: nil)

        init() {
            let seed = ModelWorld.seed(spec: ModelSpec(boardClients: 2, accounts: 3), userIds: ["u1", "u2"])
            model = InMemoryModel(
                seed: seed,
                callers: [
                    "tok-u1": Caller(userId: "u1", organizationId: AppStoresInMemoryTests.org),
                    "tok-u2": Caller(userId: "u2", organizationId: AppStoresInMemoryTests.org),
                ])
        }

        func board(token: String = "tok-u1") -> BoardStore {
            BoardStore(network: model, storage: storage, token: token, senderID: "c001", metrics: metrics)
        }

        func accountPage(token: String = "tok-u1") -> AccountPageStore {
            AccountPageStore(network: model, storage: storage, token: token, metrics: metrics)
        }

        /// The other user moves a card straight through the server.
        func otherUserMoves(_ card: WhalerAPI.AccountRow, to column: String) async throws {
            let input: [String: Any] = [
                "id": card.id, "salesforceID": card.salesforceID, "name": card.name, "state": column,
            ]
            _ = try await model.saveAccounts([input], senderID: "c002", token: "tok-u2")
        }

        var serverBoard: [WhalerAPI.AccountRow] {
            get async throws { try await model.accounts(token: "tok-u2") }
        }
    }

    static func otherColumn(than state: String?) -> String {
        BoardStore.columns.first { $0 != (state ?? "Ready") }!
    }

    @Test func aBoardOpensFromStorageThenRefreshes() async throws {
        let rig = Rig()
        #expect(rig.storage.snapshot.board.isEmpty, "nothing cached before the first open")
        let first = await rig.board().open()
        #expect(first.count == 3)
        #expect(rig.storage.snapshot.board == first, "the fresh cards are cached")
        // Meanwhile another user moves a card: the cache still shows the old column…
        let card = first[0]
        let column = Self.otherColumn(than: card.state)
        try await rig.otherUserMoves(card, to: column)
        #expect(rig.storage.snapshot.board[0].state == card.state)
        // …until the page is opened again, and the server's answer replaces it.
        let fresh = await rig.board().open()
        #expect(fresh.first { $0.id == card.id }?.state == column)
        #expect(rig.storage.snapshot.board == fresh)
        #expect(rig.metrics.counterTotal("page_opens") == 2)
        #expect(rig.metrics.counterTotal("page_reads") == 2)
    }

    @Test func aFailedRefreshLeavesTheCachedPageShowing() async throws {
        let rig = Rig()
        let cached = await rig.board().open()
        #expect(!cached.isEmpty)
        // A token the server does not know: the refresh is refused, the cached cards stay.
        let shown = await rig.board(token: "tok-expired").open()
        #expect(shown == cached)
        #expect(rig.storage.snapshot.board == cached)

        let page = await rig.accountPage().open("acc-1")
        #expect(page != nil)
        #expect(await rig.accountPage(token: "tok-expired").open("acc-1") == page, "the cached account page")
        #expect(await rig.accountPage(token: "tok-expired").open("acc-2") == nil, "never shown, nothing cached")
    }

    @Test func aCardMoveIsShownAtOnceAndConfirmed() async throws {
        let rig = Rig()
        let cards = await rig.board().open()
        let card = cards[1]
        let column = Self.otherColumn(than: card.state)
        await rig.board().moveCard(card, to: column)
        #expect(rig.storage.snapshot.board.first { $0.id == card.id }?.state == column)
        #expect(try await rig.serverBoard.first { $0.id == card.id }?.state == column)
        #expect(rig.metrics.counterTotal("kanban_moves") == 1)
        #expect(rig.metrics.counterTotal("kanban_rollbacks") == 0)
    }

    @Test func aRefusedCardMoveIsRolledBack() async throws {
        let rig = Rig()
        let cards = await rig.board().open()
        // Not a column: the server refuses the save (badInput) and applies nothing.
        await rig.board().moveCard(cards[0], to: "Nowhere")
        #expect(rig.storage.snapshot.board == cards, "rolled back")
        #expect(try await rig.serverBoard == cards)
        #expect(rig.metrics.counterTotal("kanban_rollbacks") == 1)
        #expect(rig.metrics.counterTotal("kanban_moves") == 0)
    }

    /// The optimistic change is in storage while the request is on its way, whatever its outcome.
    @Test func optimisticShowsBeforeTheAnswerAndUndoesOnARefusal() async throws {
        let storage = AppStorage()
        storage.write { $0.board = [WhalerAPI.AccountRow(id: "a", salesforceID: "s", name: "A", state: "Ready")] }
        let moved = WhalerAPI.AccountRow(id: "a", salesforceID: "s", name: "A", state: "Worked")
        let confirmed = WhalerAPI.AccountRow(id: "a", salesforceID: "s", name: "A (saved)", state: "Worked")
        let show: (inout AppStorage.Contents) -> Optimistic.Undo = { c in
            let before = c.board[0]
            c.board[0] = moved
            return { $0.board[0] = before }
        }
        let reply = await Optimistic.mutate(
            storage, show: show,
            send: { () async throws(APIError) -> WhalerAPI.AccountRow in
                #expect(storage.snapshot.board[0] == moved, "shown before the answer")
                return confirmed
            }, confirm: { saved, c in c.board[0] = saved })
        #expect(reply == confirmed)
        #expect(storage.snapshot.board[0] == confirmed, "the answer written over the guess")

        let refused = await Optimistic.mutate(
            storage, show: show,
            send: { () async throws(APIError) -> WhalerAPI.AccountRow in
                #expect(storage.snapshot.board[0] == moved)
                throw APIError("graphql", "badInput: no")
            })
        #expect(refused == nil)
        #expect(storage.snapshot.board[0] == confirmed, "undone")
    }

    /// A Salesforce record saved to Whaler: its fields as `NewAccount` variables, absent ones left
    /// out, the employee count a String (as the original schema has it).
    @Test func aSalesforceRecordBecomesTheAppsAccountInput() throws {
        let record = SalesforceAPI.AccountRecord(
            id: "001A", name: "O'Brien & Sons", industry: "Retail", billingState: nil, billingCity: "Austin",
            type: nil, website: nil, phone: "555", employees: 40)
        let input = AccountsStore.accountInput(record)
        #expect(
            input.keys.sorted() == ["billingCity", "industry", "name", "numberOfEmployees", "phone", "salesforceID"])
        #expect(input["salesforceID"] as? String == "001A")
        #expect(input["name"] as? String == "O'Brien & Sons")
        #expect(input["numberOfEmployees"] as? String == "40")
        #expect(input["billingCity"] as? String == "Austin")
    }
}
