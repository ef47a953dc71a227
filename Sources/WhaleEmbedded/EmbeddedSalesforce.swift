import Foundation
import SalesforceFake
import SalesforceHTTP

/// The embedded fake Salesforce: the small fixture org grown to `accounts` accounts, so an
/// import pages through `nextRecordsUrl`.
public enum EmbeddedSalesforce {
    public static func start(fixtures: URL, accounts: Int, seed: UInt64) async throws -> FakeSalesforceServer {
        let template = fixtures.appendingPathComponent("salesforce/small")
        let org = try OrgGenerator.generate(seed: seed, accounts: accounts, templateDirectory: template)
        return try await FakeSalesforceServer.start(org: org, config: FakeSalesforceConfig(seed: seed))
    }
}
