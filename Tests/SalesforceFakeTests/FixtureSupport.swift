import Foundation
import Testing
@testable import SalesforceFake

/// Locates fixtures by walking up from this file to the package root.
enum FixtureSupport {
    static let packageRoot: URL = {
        var url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) {
            url = url.deletingLastPathComponent()
        }
        return url
    }()

    static func orgDirectory(_ name: String) -> URL {
        packageRoot.appendingPathComponent("Fixtures/salesforce").appendingPathComponent(name)
    }

    /// A fresh copy of the small org (tests that write get their own).
    static func smallOrg() throws -> Org { try Org.load(directory: orgDirectory("small")) }

    /// The small org loaded once for read-only tests.
    static let shared: Org = try! smallOrg()

    /// Ids as the small fixture spells them.
    static func account(_ n: Int) -> String { id("001", "AcC", n) }
    static func contact(_ n: Int) -> String { id("003", "CoN", n) }
    static func lead(_ n: Int) -> String { id("00Q", "LeA", n) }
    static func user(_ n: Int) -> String { id("005", "UsR", n) }
    static func opportunity(_ n: Int) -> String { id("006", "OpP", n) }
    static func task(_ n: Int) -> String { id("00T", "TsK", n) }
    static func id(_ prefix: String, _ tag: String, _ n: Int) -> String {
        let digits = String(n)
        return SalesforceId.to18(prefix + "5g0000" + tag + String(repeating: "0", count: 3 - digits.count) + digits)!
    }
}

/// Runs a query on the shared small org.
func query(_ soql: String, org: Org = FixtureSupport.shared, all: Bool = false) throws -> SOQLResult {
    try SOQL.execute(soql, in: org, apiVersion: "59.0", includeDeleted: all)
}

/// The error a query fails with (fails the test when it succeeds).
func queryError(_ soql: String, org: Org = FixtureSupport.shared, sourceLocation: SourceLocation = #_sourceLocation)
    -> SalesforceError?
{
    do {
        _ = try SOQL.execute(soql, in: org, apiVersion: "59.0", includeDeleted: false)
        Issue.record("expected an error for: \(soql)", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

/// The last line of a located query error: the message proper.
func headline(_ error: SalesforceError?) -> String? {
    error?.message.split(separator: "\n").last.map(String.init)
}

extension SOQLResult {
    func strings(_ field: String) -> [String?] { records.map { $0[field]?.stringValue } }
}
