/// An account's page (its contacts and open tasks) on a server without whalesim's extensions:
/// opened from storage and refreshed from the server. (A model-driven page is a ``ModelPage``.)
struct AccountPageStore: Sendable {
    let network: any WhalerNetworking
    let storage: AppStorage
    let token: String
    let metrics: LiveMetrics

    /// Opens `accountId`'s page: the cached page shows at once, then the server's answer
    /// replaces it (cached, then fresh); nil while neither has anything.
    @discardableResult
    func open(_ accountId: String) async -> AppStorage.AccountPage? {
        let cached = storage.snapshot.accountPages[accountId]
        metrics.count("page_opens")
        metrics.count("page_reads")
        guard let fresh = try? await network.accountPage(accountId, token: token) else { return cached }
        let page = AppStorage.AccountPage(contacts: fresh.contacts, tasks: fresh.tasks)
        storage.write { $0.accountPages[accountId] = page }
        return page
    }
}
