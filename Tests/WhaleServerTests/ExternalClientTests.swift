import Foundation
import Testing
import WhalesimTesting

/// Clients nobody here wrote: Python's `websockets` package (Tests/External/whaler_socket_check.py)
/// and curl, against a live server on 127.0.0.1, port 0.
@Suite(.serialized) struct ExternalClientTests {
    @Test func pythonWebsocketsClientsEditOneNoteConcurrentlyAndConverge() async throws {
        let python = try #require(ExternalProcess.python3(), "python3 is missing: \(ExternalProcess.pythonHint)")
        let probe = try await ExternalProcess.run(python, ["-c", "import websockets"], timeout: .seconds(60))
        try #require(probe.status == 0, "the websockets package is missing in \(python): \(ExternalProcess.pythonHint)")
        let harness = try await ServerHarness.start()
        let script = ExternalProcess.packageRoot.appendingPathComponent("Tests/External/whaler_socket_check.py").path
        let output = try await ExternalProcess.run(
            python,
            [
                script, "--base", harness.base, "--email", ServerHarness.ada.email, "--password",
                ServerHarness.ada.password, "--rounds", "6",
            ],
            timeout: .seconds(120))
        let transcript = "exit \(output.status)\n\(output.stdout)\n\(output.stderr.suffix(3000))"
        #expect(output.status == 0, "\(transcript)")
        #expect(output.stdout.contains("ALL OK"), "\(transcript)")
        #expect(output.stdout.contains("ok GraphQL note equals the socket's text"), "\(transcript)")
        await harness.stop()
    }

    @Test func curlSignsInAndQueriesGraphQL() async throws {
        let harness = try await ServerHarness.start()
        let login = try await ExternalProcess.run(
            "/usr/bin/curl",
            [
                "-sS", "-X", "POST", harness.base + "/api/user/login", "-H", "Content-Type: application/json",
                "-d", #"{"email":"\#(ServerHarness.ada.email)","password":"\#(ServerHarness.ada.password)"}"#,
            ], timeout: .seconds(30))
        #expect(login.status == 0, "\(login.stderr)")
        let body = try #require(try JSONSerialization.jsonObject(with: Data(login.stdout.utf8)) as? [String: Any])
        #expect(body["code"] as? Int == 1000)
        let token = try #require(
            ((body["data"] as? [String: Any])?["tokens"] as? [String: Any])?["accessToken"] as? String)

        let query = try await ExternalProcess.run(
            "/usr/bin/curl",
            [
                "-sS", "-X", "POST", harness.base + "/query", "-H", "Content-Type: application/json", "-H",
                "Authorization: \(token)",
                "-d",
                #"{"operationName":"Org","query":"query Org { organization { name users { email } } accounts { id name state } }"}"#,
            ], timeout: .seconds(30))
        #expect(query.stdout.contains(ServerHarness.ada.email), "\(query.stdout)")
        #expect(query.stdout.contains(#""accounts":[{"#), "\(query.stdout)")

        let introspection = try await ExternalProcess.run(
            "/usr/bin/curl",
            [
                "-sS", "-X", "POST", harness.base + "/query", "-H", "Authorization: \(token)",
                "-d", #"{"query":"{ __schema { queryType { name } mutationType { fields { name } } } }"}"#,
            ], timeout: .seconds(30))
        for mutation in [
            "saveAccounts", "saveContacts", "saveNote", "saveTask", "applyAccountTrackingChanges",
            "createAccountAssignmentEntry", "createContactAssignmentEntry", "createTaskAssignmentEntry", "createUser",
            "createOrganization",
        ] {
            #expect(introspection.stdout.contains(#""\#(mutation)""#), "introspection lacks \(mutation)")
        }
        let unauthorized = try await ExternalProcess.run(
            "/usr/bin/curl",
            [
                "-sS", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST", harness.base + "/query", "-d",
                #"{"query":"{ accounts { id } }"}"#,
            ], timeout: .seconds(30))
        #expect(unauthorized.stdout == "403")
        await harness.stop()
    }
}
