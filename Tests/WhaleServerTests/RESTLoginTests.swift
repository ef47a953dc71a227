import Foundation
import Testing
@testable import WhaleServer

/// `POST /api/user/login` and `/api/user/refresh`: the original envelope and codes, and what each
/// bad request gets.
@Suite(.serialized) struct RESTLoginTests {
    @Test func loginAnswersCode1000WithUserOrganizationAndTokens() async throws {
        let harness = try await ServerHarness.start()
        let (status, json) = try await harness.post(
            "/api/user/login", ["email": ServerHarness.ada.email, "password": ServerHarness.ada.password])
        #expect(status == 200)
        #expect(json["code"] as? Int == 1000)
        #expect(json["hasError"] as? Bool == false)
        let data = try #require(json["data"] as? [String: Any])
        let user = try #require(data["response"] as? [String: Any])
        #expect(user["email"] as? String == ServerHarness.ada.email)
        #expect(user["password"] as? String == "", "the password hash never leaves the server")
        let organization = try #require(user["organization"] as? [String: Any])
        #expect((organization["users"] as? [[String: Any]])?.count ?? 0 >= 2)
        let tokens = try #require(data["tokens"] as? [String: Any])
        #expect((tokens["accessToken"] as? String)?.split(separator: ".").count == 3)
        #expect(((tokens["refreshToken"] as? String)?.count ?? 0) >= 32)
        await harness.stop()
    }

    @Test func badLoginsGetTheirCodes() async throws {
        let harness = try await ServerHarness.start()
        let wrongPassword = try await harness.post(
            "/api/user/login", ["email": ServerHarness.ada.email, "password": "nope"])
        #expect(wrongPassword.json["code"] as? Int == 4001 && wrongPassword.json["hasError"] as? Bool == true)
        let unknown = try await harness.post("/api/user/login", ["email": "nobody@nowhere.test", "password": "x"])
        #expect(unknown.json["code"] as? Int == 4001)
        for body in [
            Data("not json".utf8), Data("{}".utf8), Data(#"{"email": 3, "password": []}"#.utf8), Data([0xff, 0xfe]),
            Data(),
        ] {
            let malformed = try await harness.post("/api/user/login", [:], rawBody: body)
            #expect(
                malformed.status == 200 && malformed.json["code"] as? Int == 4000,
                "\(String(decoding: body, as: UTF8.self))")
        }
        await harness.stop()
    }

    @Test func refreshTakesAnExpiredButGenuineAccessToken() async throws {
        let harness = try await ServerHarness.start()
        let (_, login) = try await harness.post(
            "/api/user/login", ["email": ServerHarness.ada.email, "password": ServerHarness.ada.password])
        let data = try #require(login["data"] as? [String: Any])
        let tokens = try #require(data["tokens"] as? [String: String])
        let userId = try #require((data["response"] as? [String: Any])?["id"] as? String)
        let signer = AccessTokens(secret: Data(ServerHarness.secret.utf8))
        let expired = signer.issue(userId: userId, now: Int64(Date().timeIntervalSince1970) - 7200)

        let refreshed = try await harness.post(
            "/api/user/refresh", ["refreshToken": tokens["refreshToken"]!], token: expired)
        #expect(refreshed.json["code"] as? Int == 1000)
        let newAccess = try #require(
            ((refreshed.json["data"] as? [String: Any])?["tokens"] as? [String: Any])?["accessToken"] as? String)
        #expect(try signer.verify(newAccess, now: Int64(Date().timeIntervalSince1970)) == userId)
        // Rotated: a new refresh token, and the exchanged one is spent.
        let newRefresh = try #require(
            ((refreshed.json["data"] as? [String: Any])?["tokens"] as? [String: Any])?["refreshToken"] as? String)
        #expect(newRefresh != tokens["refreshToken"])
        let reused = try await harness.post(
            "/api/user/refresh", ["refreshToken": tokens["refreshToken"]!], token: expired)
        #expect(reused.json["code"] as? Int == 4004, "an exchanged refresh token must not work again")

        // A refresh token that is not this user's, or not one at all: 4004.
        let wrong = try await harness.post("/api/user/refresh", ["refreshToken": "bm90LWEtdG9rZW4="], token: expired)
        #expect(wrong.json["code"] as? Int == 4004)
        let bob = try await harness.login(ServerHarness.bob)
        let stolen = try await harness.post("/api/user/refresh", ["refreshToken": newRefresh], token: bob.token)
        #expect(stolen.json["code"] as? Int == 4004, "a refresh token works only for the user it was issued to")
        // Bob's refused attempt did not spend it: its user still can.
        let again = try await harness.post("/api/user/refresh", ["refreshToken": newRefresh], token: expired)
        #expect(again.json["code"] as? Int == 1000)
        // Missing, forged and wrong-algorithm access tokens: HTTP 403, code 4003.
        let forged = AccessTokens(secret: Data("someone-else's-key-0123456789abc".utf8)).issue(userId: userId, now: 0)
        let none =
            AccessTokens.base64URL(Data(#"{"alg":"none"}"#.utf8)) + "."
            + AccessTokens.base64URL(Data(#"{"userID":"\#(userId)","exp":9999999999}"#.utf8)) + "."
        for token in [nil, forged, none, "garbage"] {
            let refused = try await harness.post(
                "/api/user/refresh", ["refreshToken": tokens["refreshToken"]!], token: token)
            #expect(refused.status == 403 && refused.json["code"] as? Int == 4003, "\(token ?? "no token")")
        }
        await harness.stop()
    }

    @Test func healthAndMetricsAnswer() async throws {
        let harness = try await ServerHarness.start()
        let health = try await harness.get("/health")
        #expect(
            health.status == 200 && health.text.contains(#""status":"ok""#)
                && health.text.contains(#""schemaVersion":1"#))
        _ = try await harness.post("/api/user/login", ["email": "nobody@nowhere.test", "password": "x"])
        let metrics = try await harness.get("/metrics")
        #expect(metrics.status == 200)
        for name in [
            "whalesim_connections", "whalesim_messages_received_total", "whalesim_ops_applied_total",
            "whalesim_ack_latency_seconds", #"whalesim_errors_total{code="4001"} 1"#,
        ] {
            #expect(metrics.text.contains(name), "metrics lack \(name)")
        }
        await harness.stop()
    }
}
