import WhaleCore

/// Makes generated rows for one org: values by field name, ids from a per-object counter that
/// starts past the template's ids.
struct RecordBuilder {
    let org: Org
    var rng: SplitMix64
    let nowMillis: Int
    /// Datetime strings are interned: 400k rows share ~26k distinct stamps (hour resolution),
    /// and a shared String costs 16 bytes instead of a 64-byte heap copy.
    var stamps: [Int: JSONValue] = [:]
    /// Who the system fields (`CreatedById`, `LastModifiedById`) name on rows without an owner: the template's first User.
    let auditUser: String?

    init(org: Org, rng: SplitMix64) {
        self.org = org
        self.rng = rng
        nowMillis = Int(org.settings.now.timeIntervalSince1970 * 1000)
        auditUser = org.records(of: "User").first?.id
    }

    /// Builds rows of `object` and appends them; returns their ids.
    mutating func make(_ object: String, count: Int, _ fill: (inout SplitMix64, Int) -> [String: JSONValue])
        throws(FixtureError) -> [String]
    {
        guard let t = org.schemaIndexByName[object.lowercased()] else {
            throw FixtureError(file: "template", line: nil, message: "the generator needs a \(object) schema")
        }
        let schema = org.schemas[t]
        let counterBase = 100_000 + org.count(of: object)
        var rows: [(String, [JSONValue])] = []
        rows.reserveCapacity(count)
        for i in 0..<count {
            let id = SalesforceId.make(prefix: schema.keyPrefix, counter: counterBase + i)
            var values = [JSONValue](repeating: .null, count: schema.fields.count)
            values[0] = .string(id)
            for (name, value) in fill(&rng, i) {
                if let p = schema.layout.position(of: name) { values[p] = value }
            }
            // One string shared by both stamps (400k rows: ~20 MB saved).
            let hoursAgo = 1 + rng.below(3 * 365 * 24)
            let created = stamps[hoursAgo] ?? .string(CivilTime.formatDateTime(nowMillis - hoursAgo * 3_600_000))
            stamps[hoursAgo] = created
            for name in ["CreatedDate", "LastModifiedDate", "SystemModstamp"] {
                if let p = schema.layout.position(of: name) { values[p] = created }
            }
            do {
                let owner = schema.layout.position(of: "OwnerId").flatMap { values[$0].stringValue }
                try Org.applyDefaults(schema: schema, values: &values, now: org.settings.now, user: owner ?? auditUser)
            } catch {
                throw FixtureError(file: "generator", line: nil, message: "\(object) #\(i): \(error.message)")
            }
            rows.append((id, values))
        }
        org.appendBatch(type: t, rows: rows)
        return rows.map(\.0)
    }

    mutating func users(_ count: Int) throws(FixtureError) -> [String] {
        try make("User", count: count) { rng, i in
            let first = rng.pick(Words.firstNames), last = rng.pick(Words.lastNames)
            return [
                "Username": .string("user\(i)@load.whaler.test"), "FirstName": .string(first),
                "LastName": .string(last),
                "Alias": .string("u\(i)"), "Email": .string("user\(i)@load.whaler.test"), "IsActive": .bool(true),
                "Title": .string(rng.pick(Words.titles)),
            ]
        }
    }

    mutating func accounts(_ count: Int, owners: [String]) throws(FixtureError) -> [String] {
        try make("Account", count: count) { rng, i in
            // Names and websites of at most 15 bytes are stored inline by Swift's String (no heap copy).
            let stem = rng.pick(Words.companyStems), suffix = rng.pick(Words.companySuffixes)
            let long = "\(stem) \(suffix) \(i)"
            let name = long.utf8.count <= 15 ? long : "\(stem) \(i)"
            let (city, state) = rng.pick(Words.cities)
            var v: [String: JSONValue] = [
                "Name": .string(name), "Industry": .string(rng.pick(Words.industries)),
                "BillingCity": .string(city), "BillingState": .string(state),
                "OwnerId": .string(owners[rng.below(owners.count)]),
                "Phone": .string("(555) \(100 + rng.below(900))-\(1000 + rng.below(9000))"),
                "Website": .string("www.a\(i).com"),
                "NumberOfEmployees": .int(1 + rng.below(50_000)),
                "AnnualRevenue": .double(Double(1 + rng.below(100_000)) * 10_000),
            ]
            if rng.below(10) > 0 { v["Type"] = .string(rng.pick(Words.accountTypes)) }
            if rng.below(4) == 0 { v["Rating"] = .string(rng.pick(["Hot", "Warm", "Cold"])) }
            return v
        }
    }

    mutating func contacts(accountIds: [String], maxPerAccount: Int) throws(FixtureError) {
        var parents: [String] = []
        for id in accountIds {
            for _ in 0..<rng.below(maxPerAccount + 1) { parents.append(id) }
        }
        let accountOwners = Dictionary(
            uniqueKeysWithValues: org.records(of: "Account").map { ($0.id, $0["OwnerId"] ?? .null) })
        _ = try make("Contact", count: parents.count) { rng, i in
            let first = rng.pick(Words.firstNames), last = rng.pick(Words.lastNames)
            return [
                "FirstName": .string(first), "LastName": .string(last), "AccountId": .string(parents[i]),
                "Title": .string(rng.pick(Words.titles)), "Phone": .string("(555) 010-\(1000 + rng.below(9000))"),
                "Email": .string("c\(i)@ex.com"),
                "OwnerId": accountOwners[parents[i]] ?? .null,
            ]
        }
    }

    mutating func leads(_ count: Int, owners: [String]) throws(FixtureError) {
        _ = try make("Lead", count: count) { rng, i in
            let first = rng.pick(Words.firstNames), last = rng.pick(Words.lastNames)
            return [
                "FirstName": .string(first), "LastName": .string(last),
                "Company": .string(rng.pick(Words.companyStems) + " " + rng.pick(Words.companySuffixes)),
                "Status": .string(
                    rng.pick([
                        "Open - Not Contacted", "Working - Contacted", "Closed - Converted", "Closed - Not Converted",
                    ])),
                "Email": .string("l\(i)@ex.com"), "OwnerId": .string(owners[rng.below(owners.count)]),
            ]
        }
    }

    mutating func tasks(_ count: Int, accountIds: [String], owners: [String]) throws(FixtureError) {
        guard !accountIds.isEmpty else { return }
        let contactIds = org.records(of: "Contact").map(\.id)
        let today = DateLiterals.today(org.settings)
        _ = try make("Task", count: count) { rng, _ in
            var v: [String: JSONValue] = [
                "Subject": .string(rng.pick(["Call", "Email", "Meeting", "Follow up", "Send quote"])),
                "Status": .string(rng.pick(["Not Started", "In Progress", "Completed", "Deferred"])),
                "Priority": .string(rng.pick(["High", "Normal", "Low"])),
                "ActivityDate": .string(CivilTime.formatDate(today - 30 + rng.below(60))),
                "WhatId": .string(accountIds[rng.below(accountIds.count)]),
                "OwnerId": .string(owners[rng.below(owners.count)]),
            ]
            if !contactIds.isEmpty { v["WhoId"] = .string(contactIds[rng.below(contactIds.count)]) }
            return v
        }
    }
}
