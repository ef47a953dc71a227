import WhaleModel

/// The board (the kanban of the user's tracked accounts) on a server without whalesim's
/// extensions: opened from storage and refreshed, cards moved optimistically (``Optimistic``),
/// accounts tracked and untracked. Its actions are what the user does; its answers are
/// read-only rows. (A model-driven board is a ``ModelPage``.)
struct BoardStore: Sendable {
    let network: any WhalerNetworking
    let storage: AppStorage
    let token: String
    /// The client instance id the server echoes in its `resourceUpdate`s.
    let senderID: String
    let metrics: LiveMetrics

    /// The board's columns, in the app's order.
    static let columns = ["Ready", "In Progress", "Worked", "Opportunity"]

    /// Opens the board: what storage holds shows at once, then the server's cards replace it
    /// (cached, then fresh). A failed refresh leaves the cached cards on screen, as the app does.
    @discardableResult
    func open() async -> [WhalerAPI.AccountRow] {
        metrics.count("page_opens")
        metrics.count("page_reads")
        guard let fresh = try? await network.accounts(token: token) else { return storage.snapshot.board }
        storage.write { $0.board = fresh }
        return fresh
    }

    /// Moves `card` to `column`: shown at once, rolled back if the server refuses.
    func moveCard(_ card: WhalerAPI.AccountRow, to column: String) async {
        let input = Self.input(card, state: column)
        let moved = WhalerAPI.AccountRow(id: card.id, salesforceID: card.salesforceID, name: card.name, state: column)
        let saved = await Optimistic.mutate(
            storage,
            show: { c in
                Self.replace(card.id, with: moved, in: &c)
                return { Self.replace(card.id, with: card, in: &$0) }
            },
            send: { () async throws(APIError) in
                try await network.saveAccounts([input], senderID: senderID, token: token)
            },
            confirm: { saved, c in
                if let s = saved.first { Self.replace(card.id, with: s, in: &c) }
            })
        metrics.count(saved == nil ? "kanban_rollbacks" : "kanban_moves")
    }

    /// Tracks or untracks `card` (its column kept); not shown before the answer, as in the app.
    func track(_ card: WhalerAPI.AccountRow, tracked: Bool) async {
        try? await network.track([Self.input(card, state: card.state ?? "Ready")], tracked: tracked, token: token)
    }

    /// The `NewAccount` variables that save `card` in `state`.
    private static func input(_ card: WhalerAPI.AccountRow, state: String) -> [String: Any] {
        WhalerAPI.accountVariables(
            AccountInput(id: card.id, salesforceID: card.salesforceID, name: card.name, state: state))
    }

    private static func replace(_ id: String, with row: WhalerAPI.AccountRow, in c: inout AppStorage.Contents) {
        if let i = c.board.firstIndex(where: { $0.id == id }) { c.board[i] = row }
    }
}
