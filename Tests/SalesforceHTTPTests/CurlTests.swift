import Foundation
import SalesforceFake
import Testing
import SalesforceHTTP

/// curl (an external client no one here wrote) against the fake over real sockets.
@Suite(.serialized) struct CurlTests {
    let curl = "/usr/bin/curl"

    func curlJSON(_ arguments: [String]) async throws -> (status: Int, json: JSONValue, text: String) {
        let output = try await Live.run(curl, ["-sS", "-w", "\n%{http_code}"] + arguments, timeout: .seconds(30))
        #expect(output.status == 0, "curl failed: \(output.stderr)")
        let lines = output.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        let status = Int(lines.last ?? "") ?? 0
        let body = lines.dropLast().joined(separator: "\n")
        return (status, (try? JSONValue.parse(body)) ?? .null, body)
    }

    @Test func curlOverHTTPAndHTTPS() async throws {
        #expect(FileManager.default.isExecutableFile(atPath: curl), "install curl (apt-get install curl)")
        let server = try await FakeSalesforceServer.start(org: try Live.loadSmallOrg())
        #expect(server.httpPort > 0 && server.httpsPort > 0 && server.httpPort != server.httpsPort)

        // Versions, no auth.
        let versions = try await curlJSON(["\(server.httpURL)/services/data/"])
        #expect(versions.status == 200)
        #expect(versions.json.arrayValue?.contains { $0["version"] == "59.0" } == true)

        // The same over HTTPS, trusting only the generated CA (certificate checked by curl).
        let secure = try await curlJSON(["--cacert", server.caFile.path, "\(server.httpsURL)/services/data/"])
        #expect(secure.status == 200)
        let viaLocalhost = try await curlJSON([
            "--cacert", server.caFile.path, "https://localhost:\(server.httpsPort)/services/data/",
        ])
        #expect(viaLocalhost.status == 200)

        // OAuth password grant, form-encoded by curl.
        let login = try await curlJSON([
            "\(server.httpURL)/services/oauth2/token", "--data-urlencode", "grant_type=password",
            "--data-urlencode", "client_id=whalesim-client", "--data-urlencode", "client_secret=whalesim-secret",
            "--data-urlencode", "username=\(Live.admin.username)",
            "--data-urlencode", "password=\(Live.admin.password)\(Live.admin.token)",
        ])
        #expect(login.status == 200)
        #expect(login.json["instance_url"] == .string(server.httpURL))
        let token = try #require(login.json["access_token"]?.stringValue)

        // A query, spaces sent as '+', trailing slash after /query.
        let query = try await curlJSON([
            "-H", "Authorization: Bearer \(token)",
            "\(server.httpURL)/services/data/v59.0/query/?q=SELECT+Id,+Name+FROM+Account+ORDER+BY+Name+LIMIT+2",
        ])
        #expect(query.status == 200, "\(query.text)")
        #expect(query.json["totalSize"] == 2 && query.json["done"] == true)
        #expect(query.json["records"]?[0]?["attributes"]?["type"] == "Account")

        // The same through curl's own encoding (-G --data-urlencode).
        let encoded = try await curlJSON([
            "-G", "-H", "Authorization: Bearer \(token)", "\(server.httpURL)/services/data/v59.0/query",
            "--data-urlencode", "q=SELECT COUNT() FROM Account",
        ])
        #expect(encoded.status == 200)
        #expect(encoded.json["totalSize"] == .int(try Live.loadSmallOrg().records(of: "Account").count))

        // A malformed query: 400 and the error array.
        let bad = try await curlJSON([
            "-H", "Authorization: Bearer \(token)",
            "\(server.httpURL)/services/data/v59.0/query?q=SELECT+Id+FORM+Account",
        ])
        #expect(bad.status == 400)
        #expect(bad.json[0]?["errorCode"] == "MALFORMED_QUERY")
        #expect(bad.json[0]?["message"]?.stringValue?.isEmpty == false)

        // No token: 401 INVALID_SESSION_ID.
        let anonymous = try await curlJSON(["\(server.httpURL)/services/data/v59.0/limits"])
        #expect(anonymous.status == 401 && anonymous.json[0]?["errorCode"] == "INVALID_SESSION_ID")

        // Every request landed in the log, in order.
        let log = server.fake.requestLog.entries
        #expect(log.map(\.status) == [200, 200, 200, 200, 200, 200, 400, 401])
        #expect(log[4].soql == "SELECT Id, Name FROM Account ORDER BY Name LIMIT 2")
        #expect(log[4].rows == 2 && log[4].client == Live.admin.username)
        await server.stop()
    }
}
