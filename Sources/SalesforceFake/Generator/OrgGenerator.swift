import Foundation
import WhaleCore

/// Builds large orgs for load runs, deterministically from a seed: the template's settings,
/// schemas, users and credentials, plus generated users, accounts (with contacts), leads and tasks.
///
/// ```swift
/// let template = try Org.load(directory: fixtures.appendingPathComponent("small"))
/// let org = try OrgGenerator.generate(seed: 42, accounts: 100_000, template: template)
/// ```
public enum OrgGenerator {
    /// Sizes relative to the account count.
    public struct Shape: Sendable {
        public var usersPerThousandAccounts = 0.5
        public var minimumUsers = 8
        public var contactsPerAccountMax = 4
        public var leadsPerAccount = 0.5
        public var tasksPerAccount = 0.5
        public init() {}
    }

    /// Generates an org from `template` (needs Account, Contact, Lead, User and Task schemas shaped
    /// like `Fixtures/salesforce/small`; fields the template lacks are skipped).
    public static func generate(seed: UInt64, accounts: Int, template: Org, shape: Shape = Shape()) throws(FixtureError)
        -> Org
    {
        let org = Org(settings: template.settings, schemas: template.schemas, credentials: template.credentials)
        // The template's users stay: they are the login principals.
        if let t = org.schemaIndexByName["user"] {
            org.appendBatch(type: t, rows: template.records(of: "User").map { ($0.id, $0.values) })
        }
        var builder = RecordBuilder(org: org, rng: SplitMix64(seed: seed))
        let userCount = max(shape.minimumUsers, Int(Double(accounts) * shape.usersPerThousandAccounts / 1000))
        let users = try builder.users(userCount)
        let owners = template.records(of: "User").filter { $0["IsActive"]?.boolValue ?? true }.map(\.id) + users
        let accountIds = try builder.accounts(accounts, owners: owners)
        try builder.contacts(accountIds: accountIds, maxPerAccount: shape.contactsPerAccountMax)
        try builder.leads(Int(Double(accounts) * shape.leadsPerAccount), owners: owners)
        try builder.tasks(Int(Double(accounts) * shape.tasksPerAccount), accountIds: accountIds, owners: owners)
        return org
    }

    /// Loads the template directory first (e.g. `Fixtures/salesforce/small`).
    public static func generate(seed: UInt64, accounts: Int, templateDirectory: URL) throws(FixtureError) -> Org {
        try generate(seed: seed, accounts: accounts, template: try Org.load(directory: templateDirectory))
    }
}

extension Org {
    /// Appends already-validated rows (ids kept) under one lock.
    func appendBatch(type t: Int, rows: [(String, [JSONValue])]) {
        let schema = schemas[t]
        state.withLock { s in
            s.tables[t].rows.reserveCapacity(s.tables[t].rows.count + rows.count)
            s.tables[t].rowById.reserveCapacity(s.tables[t].rows.count + rows.count)
            for (id, values) in rows {
                s.tables[t].append(SObjectRecord(type: schema.name, id: id, values: values, layout: schema.layout))
            }
            s.tables[t].nextIdCounter = max(s.tables[t].nextIdCounter, s.tables[t].rows.count + 1)
        }
    }
}
