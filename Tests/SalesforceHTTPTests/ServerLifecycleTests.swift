import Foundation
import SalesforceFake
import Testing
import SalesforceHTTP
import WhalesimTesting

/// The live server itself: ports, certificate file, injected latency, start failures.
@Suite(.serialized) struct ServerLifecycleTests {
    /// A one-object org built in code (these tests do not need fixture contents).
    static func tinyOrg() -> Org {
        Org(
            settings: OrgSettings(
                orgId: "00D000000000009AAA", name: "Tiny", now: Date(timeIntervalSince1970: 1_700_000_000),
                timeZone: "UTC"),
            schemas: [
                ObjectSchema(
                    name: "Account", keyPrefix: "001",
                    fields: [FieldSchema(name: "Name", type: .string, nillable: false)])
            ],
            credentials: [
                Credential(username: "u@tiny.test", password: "p", securityToken: "T", userId: "005000000000001AAA")
            ])
    }

    @Test func bindsTwoPortsAndWritesThePEMCA() async throws {
        let caFile = try Live.temporaryDirectory("ca").appendingPathComponent("nested/ca.pem")
        let server = try await FakeSalesforceServer.start(org: Self.tinyOrg(), caFile: caFile)
        #expect(server.caFile == caFile)
        let pem = try String(contentsOf: caFile, encoding: .utf8)
        #expect(pem.hasPrefix("-----BEGIN CERTIFICATE-----"))
        #expect(server.httpURL == "http://127.0.0.1:\(server.httpPort)")
        #expect(server.httpsURL == "https://127.0.0.1:\(server.httpsPort)")
        let (status, body) = try await KeepAliveHTTPConnection.with(host: "127.0.0.1", port: server.httpPort) {
            connection in
            // Keep-alive: two requests on one connection.
            _ = try await connection.get("/services/data/")
            return try await connection.get("/services/data/")
        }
        #expect(status == 200)
        #expect(String(buffer: body).contains("\"version\":\"59.0\""))
        await server.stop()
        // Stopped: connecting fails. A CA file the caller named is the caller's: it stays.
        await #expect(throws: (any Error).self) {
            try await KeepAliveHTTPConnection.with(host: "127.0.0.1", port: server.httpPort) {
                try await $0.get("/services/data/")
            }
        }
        #expect(FileManager.default.fileExists(atPath: caFile.path))
    }

    /// Without a named CA file the server makes a directory for it, and removes it when stopped.
    @Test func itsOwnCADirectoryIsRemovedOnStop() async throws {
        let server = try await FakeSalesforceServer.start(org: Self.tinyOrg())
        let directory = server.caFile.deletingLastPathComponent()
        #expect(directory.lastPathComponent.hasPrefix("whalesim-fake-salesforce-"))
        #expect(FileManager.default.fileExists(atPath: server.caFile.path))
        await server.stop()
        #expect(!FileManager.default.fileExists(atPath: directory.path))
    }

    /// Bytes that are not HTTP get 400 and the connection closed (NIO leaves the close to the last
    /// handler); the next client is served.
    @Test func bytesThatAreNotHTTPGet400AndAClosedConnection() async throws {
        let python = try #require(ExternalProcess.python3(), "python3 is missing: \(ExternalProcess.pythonHint)")
        let server = try await FakeSalesforceServer.start(org: Self.tinyOrg())
        let script = ExternalProcess.packageRoot.appendingPathComponent("Tests/External/not_http_check.py").path
        let output = try await ExternalProcess.run(python, [script, "\(server.httpPort)"], timeout: .seconds(30))
        #expect(output.stdout.hasPrefix("HTTP/1.1 400"), "\(output.stdout)\(output.stderr)")
        #expect(output.stdout.contains("closed"), "the server kept the connection open: \(output.stderr)")
        let (status, _) = try await KeepAliveHTTPConnection.with(host: "127.0.0.1", port: server.httpPort) {
            try await $0.get("/services/data/")
        }
        #expect(status == 200)
        await server.stop()
    }

    @Test func injectedLatencyIsSlept() async throws {
        let config = FakeSalesforceConfig(endpoints: [.versions: EndpointBehaviour(latency: .fixed(150))])
        let server = try await FakeSalesforceServer.start(org: Self.tinyOrg(), config: config)
        let started = ContinuousClock.now
        let (status, _) = try await KeepAliveHTTPConnection.with(host: "127.0.0.1", port: server.httpPort) {
            try await $0.get("/services/data/")
        }
        #expect(status == 200)
        #expect(ContinuousClock.now - started >= .milliseconds(150))
        await server.stop()
    }

    @Test func aTakenPortIsAClearError() async throws {
        let first = try await FakeSalesforceServer.start(org: Self.tinyOrg())
        await #expect(throws: FakeSalesforceServerError.self) {
            _ = try await FakeSalesforceServer.start(org: Self.tinyOrg(), httpPort: first.httpPort)
        }
        await first.stop()
    }

    @Test func soapServerURLNamesTheListenerTheClientUsed() async throws {
        let server = try await FakeSalesforceServer.start(org: Self.tinyOrg())
        let body = APISoap.body(username: "u@tiny.test", password: "pT")
        let (status, response) = try await KeepAliveHTTPConnection.with(host: "127.0.0.1", port: server.httpPort) {
            try await $0.request(
                .POST, "/services/Soap/u/59.0", headers: [("Content-Type", "text/xml"), ("SOAPAction", "login")],
                body: Array(body.utf8))
        }
        #expect(status == 200)
        #expect(
            String(buffer: response).contains("<serverUrl>http://127.0.0.1:\(server.httpPort)/services/Soap/u/59.0/"))
        await server.stop()
    }
}

enum APISoap {
    static func body(username: String, password: String) -> String {
        """
        <?xml version="1.0" encoding="utf-8" ?><env:Envelope xmlns:env="http://schemas.xmlsoap.org/soap/envelope/">\
        <env:Body><n1:login xmlns:n1="urn:partner.soap.sforce.com"><n1:username>\(username)</n1:username>\
        <n1:password>\(password)</n1:password></n1:login></env:Body></env:Envelope>
        """
    }
}
