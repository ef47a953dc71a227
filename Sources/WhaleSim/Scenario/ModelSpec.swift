/// The model side of a scenario (`model:` in YAML): one organization whose first `board`
/// clients are on the kanban board (the organization pool) and the others on account pages,
/// round robin over the first `accounts` accounts (a few on each account pool). Every client is
/// its own user. The organization has `accounts + 2` accounts (the two extra ones to `track`),
/// three contacts and two tasks each; every board user starts tracking the first `accounts`.
///
/// ```yaml
/// model: {board: 6, accounts: 2}
/// ```
public struct ModelSpec: Hashable, Sendable {
    public var boardClients: Int
    public var accounts: Int
    public init(boardClients: Int, accounts: Int) {
        self.boardClients = boardClients
        self.accounts = accounts
    }
}
