import Foundation
import SalesforceFake
import SalesforceHTTP
import WhalesimTesting

/// Paths, fixtures and subprocesses for the live (real socket) tests.
enum Live {
    static let packageRoot = ExternalProcess.packageRoot

    static let smallOrg = packageRoot.appendingPathComponent("Fixtures/salesforce/small")

    /// The small fixture org, freshly loaded (writes never touch the files).
    static func loadSmallOrg() throws -> Org { try Org.load(directory: smallOrg) }

    static let admin = (username: "admin@whaler.test", password: "whaler123", token: "TOKEN123")

    typealias Output = ExternalProcess.Output
    static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:],
        timeout: Duration = .seconds(120), whileRunning: (@Sendable () async -> Void)? = nil
    ) async throws -> Output {
        try await ExternalProcess.run(
            executable, arguments, environment: environment, timeout: timeout, whileRunning: whileRunning)
    }
    static func python3() -> String? { ExternalProcess.python3() }
    static func temporaryDirectory(_ name: String) throws -> URL { try ExternalProcess.temporaryDirectory(name) }
}

struct LiveTestError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
