import WhaleModel

/// The app's accounts: the Salesforce search (stacked filters, following `nextRecordsUrl`) whose
/// finds go into storage, and saving a pick of them to Whaler (upsert by Salesforce id) tracked.
/// Which filters and which accounts are the user's choice (``VirtualUser``); this store carries them out.
struct AccountsStore: Sendable {
    let salesforce: SalesforceAPI
    let network: any WhalerNetworking
    let storage: AppStorage
    let token: String
    let senderID: String
    let metrics: LiveMetrics

    /// Signs in to Salesforce and searches; what it found is cached (``AppStorage/Contents/imported``).
    func importAccounts(
        credentials: (user: String, password: String, clientId: String, clientSecret: String),
        filters: [(field: String, value: String)], maxPages: Int
    ) async throws(APIError) -> [SalesforceAPI.AccountRecord] {
        let connection = try await salesforce.connect(
            username: credentials.user, password: credentials.password,
            clientId: credentials.clientId, clientSecret: credentials.clientSecret)
        let soql = SalesforceAPI.accountQuery(filters: filters, limit: 2000)
        let result = try await salesforce.query(soql, connection: connection, maxPages: maxPages)
        let accounts = result.records.compactMap(SalesforceAPI.account)
        metrics.count("imported_accounts", accounts.count)
        storage.write { $0.imported = accounts.map(Self.modelInput) }
        return accounts
    }

    /// Saves `picked` to Whaler (duplicates once, by Salesforce id) and tracks them.
    func saveAndTrack(_ picked: [SalesforceAPI.AccountRecord]) async throws(APIError) {
        let inputs = Dictionary(picked.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a }).values
            .sorted { $0.id < $1.id }.map(Self.accountInput)
        _ = try await network.saveAccounts(inputs, senderID: senderID, token: token)
        try await network.track(inputs, tracked: true, token: token)
    }

    /// The app's `NewAccount` variables for a Salesforce record (`numberOfEmployees` a String, as
    /// in the original schema): the model input's, written by ``WhalerAPI/accountVariables(_:)``.
    static func accountInput(_ a: SalesforceAPI.AccountRecord) -> [String: Any] {
        WhalerAPI.accountVariables(modelInput(a))
    }

    static func modelInput(_ a: SalesforceAPI.AccountRecord) -> AccountInput {
        AccountInput(
            salesforceID: a.id, name: a.name, industry: a.industry, numberOfEmployees: a.employees,
            billingCity: a.billingCity,
            billingState: a.billingState, phone: a.phone, website: a.website, type: a.type)
    }
}
