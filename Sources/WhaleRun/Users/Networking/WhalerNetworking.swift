import WhaleModel

/// What a model page asks of the Whaler API: a page fetch (answered on a callback, with no task
/// waiting for it) and a mutation answered with whalesim's reply extension. ``WhalerAPI`` is the
/// live one (GraphQL over HTTP); a test hands in one that answers from a sans-I/O ``ModelServer``.
protocol ModelNetworking: Sendable {
    /// Fetches the board (`accountID` nil) or an account's page; `then` gets the page.
    func fetchPage(
        accountID: String?, token: String, then: @escaping @Sendable (Result<PoolSnapshot, APIError>) -> Void)
    /// Runs a model mutation; its reply and the records it wrote.
    func mutate(_ mutation: Mutation, senderID: String, token: String) async throws(APIError)
        -> WhalerAPI.AppliedMutation
}

/// The whole Whaler API as the user's stores call it: sign-in, the board and account page reads,
/// the app's own saves (on a server without whalesim's extensions), and the model page's calls.
protocol WhalerNetworking: ModelNetworking {
    func login(email: String, password: String) async throws(APIError) -> WhalerAPI.Session
    /// The board's cards (`accounts`).
    func accounts(token: String) async throws(APIError) -> [WhalerAPI.AccountRow]
    /// An account page's contacts and open tasks (counts).
    func accountPage(_ accountId: String, token: String) async throws(APIError) -> (contacts: Int, tasks: Int)
    /// `saveAccounts`: upserts by `salesforceID`; the saved accounts.
    func saveAccounts(_ inputs: [[String: Any]], senderID: String, token: String) async throws(APIError) -> [WhalerAPI
        .AccountRow]
    /// `applyAccountTrackingChanges`.
    func track(_ inputs: [[String: Any]], tracked: Bool, token: String) async throws(APIError)
}

extension WhalerAPI: WhalerNetworking {
    func fetchPage(
        accountID: String?, token: String, then: @escaping @Sendable (Result<PoolSnapshot, APIError>) -> Void
    ) {
        startPage(accountID: accountID, token: token, then: then)
    }
}
