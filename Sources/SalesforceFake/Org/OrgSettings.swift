import Foundation

/// Org-wide settings from `org.json`: identity, the frozen "now" every date literal is
/// computed from, the time zone, the API versions served and the query caps.
public struct OrgSettings: Hashable, Sendable {
    /// 18-character org id (prefix `00D`).
    public var orgId: String
    public var name: String
    /// The frozen "now": SOQL date literals (TODAY, LAST_N_DAYS:n...) and default
    /// CreatedDate values derive from it, never from the wall clock.
    public var now: Date
    /// IANA time zone name, e.g. `America/Los_Angeles`; date literals use its calendar days.
    public var timeZone: String
    /// Oldest and newest API versions served, as Salesforce spells them ("37.0", "59.0").
    public var apiVersionMin: String
    public var apiVersionMax: String
    /// Records per query page unless `Sforce-Query-Options: batchSize=N` says otherwise.
    public var defaultPageSize: Int
    /// Largest OFFSET accepted (Salesforce: 2000).
    public var maxOffset: Int
    /// Instance name, e.g. `NA1` (shown in the SOAP login result and limits).
    public var instanceName: String

    public init(
        orgId: String, name: String, now: Date, timeZone: String, apiVersionMin: String = "37.0",
        apiVersionMax: String = "59.0", defaultPageSize: Int = 2000, maxOffset: Int = 2000,
        instanceName: String = "NA1"
    ) {
        self.orgId = orgId
        self.name = name
        self.now = now
        self.timeZone = timeZone
        self.apiVersionMin = apiVersionMin
        self.apiVersionMax = apiVersionMax
        self.defaultPageSize = defaultPageSize
        self.maxOffset = maxOffset
        self.instanceName = instanceName
    }

    /// Every version from min to max in steps of 1.0, oldest first ("37.0", "38.0"...).
    public var apiVersions: [String] {
        guard let lo = Double(apiVersionMin), let hi = Double(apiVersionMax), lo <= hi else { return [apiVersionMax] }
        return stride(from: Int(lo), through: Int(hi), by: 1).map { "\($0).0" }
    }

    /// Whether `version` ("59.0" or "v59.0") is one this org serves.
    public func supportsVersion(_ version: String) -> Bool {
        let bare = version.hasPrefix("v") ? String(version.dropFirst()) : version
        return apiVersions.contains(bare)
    }

    /// The calendar for date literals, in the org's time zone (Gregorian, weeks start Sunday).
    public var calendar: Calendar {
        var cal = Calendar(identifier: .gregorian)
        cal.timeZone = TimeZone(identifier: timeZone) ?? TimeZone(identifier: "UTC")!
        cal.firstWeekday = 1
        return cal
    }
}
