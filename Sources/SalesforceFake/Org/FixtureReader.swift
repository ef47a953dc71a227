import Foundation

/// Reads and validates the files of a fixture org; every error names file, line and field.
enum FixtureReader {
    static func read(_ file: URL) throws(FixtureError) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: file.path) else {
            throw FixtureError(file: file.path, line: nil, message: "missing or unreadable file")
        }
        return Array(data)
    }

    static func parse(_ file: URL) throws(FixtureError) -> JSONValue {
        let bytes = try read(file)
        do {
            return try JSONValue.parse(bytes)
        } catch {
            let line = bytes.prefix(error.offset).reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
            throw FixtureError(file: file.path, line: line, message: "invalid JSON: \(error.message)")
        }
    }

    static func listFiles(_ dir: URL, ext: String, optional: Bool = false) throws(FixtureError) -> [URL] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir.path) else {
            if optional { return [] }
            throw FixtureError(file: dir.path, line: nil, message: "missing directory")
        }
        return names.filter { $0.hasSuffix("." + ext) }.sorted().map { dir.appendingPathComponent($0) }
    }

    /// Checks that an object has only `allowed` keys.
    static func checkKeys(_ pairs: [(String, JSONValue)], allowed: [String], file: URL, line: Int?, what: String)
        throws(FixtureError)
    {
        for (key, _) in pairs where !allowed.contains(key) {
            throw FixtureError(
                file: file.path, line: line,
                message: "\(what): unknown key '\(key)' (allowed: \(allowed.joined(separator: ", ")))")
        }
    }

    static func settings(_ file: URL) throws(FixtureError) -> OrgSettings {
        let json = try parse(file)
        guard let pairs = json.objectValue else {
            throw FixtureError(file: file.path, line: nil, message: "expected an object")
        }
        let keys = [
            "orgId", "name", "now", "timeZone", "apiVersionMin", "apiVersionMax", "defaultPageSize", "maxOffset",
            "instanceName",
        ]
        try checkKeys(pairs, allowed: keys, file: file, line: nil, what: "org settings")
        func string(_ key: String, default value: String? = nil) throws(FixtureError) -> String {
            if let s = json[key]?.stringValue { return s }
            if json[key] == nil, let value { return value }
            throw FixtureError(file: file.path, line: nil, message: "field \(key): expected a string")
        }
        func int(_ key: String, default value: Int) throws(FixtureError) -> Int {
            guard let v = json[key] else { return value }
            guard let i = v.intValue, i > 0 else {
                throw FixtureError(file: file.path, line: nil, message: "field \(key): expected a positive integer")
            }
            return i
        }
        let orgIdText = try string("orgId")
        guard let orgId = SalesforceId.to18(orgIdText), orgId.hasPrefix("00D") else {
            throw FixtureError(
                file: file.path, line: nil,
                message: "field orgId: '\(orgIdText)' is not a 15/18-character id starting with 00D")
        }
        let nowText = try string("now")
        guard let nowMillis = CivilTime.parseDateTime(nowText) else {
            throw FixtureError(
                file: file.path, line: nil,
                message: "field now: '\(nowText)' is not an ISO 8601 datetime like 2024-06-14T17:00:00Z")
        }
        let zone = try string("timeZone", default: "UTC")
        guard TimeZone(identifier: zone) != nil else {
            throw FixtureError(file: file.path, line: nil, message: "field timeZone: unknown time zone '\(zone)'")
        }
        let minVersion = try string("apiVersionMin", default: "37.0")
        let maxVersion = try string("apiVersionMax", default: "59.0")
        guard let lo = Double(minVersion), let hi = Double(maxVersion), lo <= hi else {
            throw FixtureError(
                file: file.path, line: nil,
                message: "fields apiVersionMin/apiVersionMax: expected versions like \"37.0\" with min <= max")
        }
        return OrgSettings(
            orgId: orgId, name: try string("name"), now: Date(timeIntervalSince1970: Double(nowMillis) / 1000),
            timeZone: zone, apiVersionMin: minVersion, apiVersionMax: maxVersion,
            defaultPageSize: try int("defaultPageSize", default: 2000), maxOffset: try int("maxOffset", default: 2000),
            instanceName: try string("instanceName", default: "NA1"))
    }
}
