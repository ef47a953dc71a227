import Foundation
import SalesforceFake
import Testing
import SalesforceHTTP
import WhalesimTesting

/// The Python client simple-salesforce from PyPI, unchanged, against the fake over HTTPS with its
/// default SOAP login. The script is Tests/External/simple_salesforce_check.py.
@Suite(.serialized) struct SimpleSalesforceTests {
    static let installHint = ExternalProcess.pythonHint
    static let bulkCount = 1_050

    @Test func simpleSalesforceEndToEnd() async throws {
        let python = try #require(Live.python3(), "python3 is missing: install Python 3, then \(Self.installHint)")
        let probe = try await Live.run(python, ["-c", "import simple_salesforce"], timeout: .seconds(60))
        try #require(
            probe.status == 0,
            "simple_salesforce is not importable by \(python) (\(probe.stderr.suffix(200))): run \(Self.installHint)")

        // The small fixture plus enough accounts for more than five pages of 200.
        let org = try Live.loadSmallOrg()
        let owner = try #require(org.credential(username: Live.admin.username)?.userId)
        for i in 0..<Self.bulkCount {
            try org.insert(
                type: "Account", fields: [("Name", .string("Bulk \(String(1000 + i))")), ("OwnerId", .string(owner))])
        }
        let server = try await FakeSalesforceServer.start(org: org)
        let handshake = try Live.temporaryDirectory("simple-salesforce")
        let fake = server.fake
        let expired = ExpiryRecord()
        let script = Live.packageRoot.appendingPathComponent("Tests/External/simple_salesforce_check.py").path
        let output = try await Live.run(
            python,
            [
                script, "--port", String(server.httpsPort), "--username", Live.admin.username, "--password",
                Live.admin.password,
                "--token", Live.admin.token, "--handshake-dir", handshake.path, "--bulk-prefix", "Bulk", "--bulk-count",
                String(Self.bulkCount),
            ],
            environment: ["REQUESTS_CA_BUNDLE": server.caFile.path],
            timeout: .seconds(180),
            whileRunning: {
                // Expire the script's session server-side when it asks, then tell it to go on.
                let request = handshake.appendingPathComponent("expire-request")
                while !Task.isCancelled {
                    if let token = try? String(contentsOf: request, encoding: .utf8) {
                        expired.set(fake.expireSession(token: token))
                        try? Data().write(to: handshake.appendingPathComponent("expire-done"))
                        return
                    }
                    try? await Task.sleep(for: .milliseconds(20))
                }
            })
        let transcript = "exit \(output.status)\nstdout:\n\(output.stdout)\nstderr:\n\(output.stderr.suffix(3000))"
        #expect(output.status == 0, "\(transcript)")
        #expect(output.stdout.contains("ALL OK"), "\(transcript)")
        for check in [
            "ok bad-login", "ok login", "ok query ", "ok query_all", "ok describe", "ok crud", "ok audit",
            "ok expired-session relogin",
            "ok revoke relogin", "ok malformed MALFORMED_QUERY", "ok invalid-field",
        ] {
            #expect(output.stdout.contains(check), "missing '\(check)' in \(transcript)")
        }
        #expect(expired.value == true, "the session the script reported was not live when expired")

        // The server's log agrees: at least five pages of one query, several logins, a 401 then a retry.
        let log = fake.requestLog.entries
        #expect(log.filter { $0.endpoint == .queryMore }.count >= 2 * 5)
        #expect(log.filter { $0.endpoint == .soapLogin && $0.status == 200 }.count == 3)
        #expect(log.contains { $0.status == 401 && $0.endpoint == .query })
        #expect(log.contains { $0.status == 201 && $0.endpoint == .sobject })
        await server.stop()
    }
}

/// What the expiry hook saw (set from the watcher task).
final class ExpiryRecord: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Bool?
    func set(_ value: Bool) { lock.withLock { stored = value } }
    var value: Bool? { lock.withLock { stored } }
}
