import Foundation
import Testing
@testable import WhaleServer

/// JWT HS256 checked for real: what each kind of bad token gets.
@Suite struct AccessTokenTests {
    let tokens = AccessTokens(secret: Data("k".utf8 + Array(repeating: 0x41, count: 31)))
    let now: Int64 = 1_800_000_000

    @Test func issuedTokenVerifiesToItsUser() throws {
        let token = tokens.issue(userId: "user-1", now: now)
        #expect(try tokens.verify(token, now: now + 60) == "user-1")
        #expect(token.split(separator: ".").count == 3)
    }

    @Test func expiredTokenIsRefusedUnlessRefreshing() throws {
        let token = tokens.issue(userId: "user-1", now: now)
        #expect(throws: AccessTokens.Failure.expired) { try tokens.verify(token, now: now + 3600) }
        #expect(try tokens.verify(token, now: now + 3600, allowExpired: true) == "user-1")
    }

    @Test func tokenSignedWithAnotherKeyIsForged() {
        let other = AccessTokens(secret: Data("another-key-another-key-another!!".utf8))
        let token = other.issue(userId: "user-1", now: now)
        #expect(throws: AccessTokens.Failure.badSignature) { try tokens.verify(token, now: now) }
        // Even for refresh: the signature must hold.
        #expect(throws: AccessTokens.Failure.badSignature) { try tokens.verify(token, now: now, allowExpired: true) }
    }

    @Test func tamperedPayloadIsForged() {
        let token = tokens.issue(userId: "user-1", now: now)
        let parts = token.split(separator: ".").map(String.init)
        let payload = AccessTokens.base64URL(Data(#"{"userID":"admin","exp":9999999999}"#.utf8))
        #expect(throws: AccessTokens.Failure.badSignature) {
            try tokens.verify([parts[0], payload, parts[2]].joined(separator: "."), now: now)
        }
    }

    @Test func algorithmNoneAndSwapsAreRefused() {
        let payload = AccessTokens.base64URL(Data(#"{"userID":"user-1","exp":9999999999}"#.utf8))
        for alg in ["none", "HS512", "RS256", "hs256"] {
            let header = AccessTokens.base64URL(Data(#"{"alg":"\#(alg)","typ":"JWT"}"#.utf8))
            #expect(throws: AccessTokens.Failure.wrongAlgorithm(alg)) {
                try tokens.verify("\(header).\(payload).", now: now)
            }
        }
    }

    @Test func malformedTokensAreRefused() {
        #expect(throws: AccessTokens.Failure.missing) { try tokens.verify(nil, now: now) }
        #expect(throws: AccessTokens.Failure.missing) { try tokens.verify("", now: now) }
        for bad in ["abc", "a.b", "a.b.c.d", "!!!.???.***", "eyJhbGciOiJIUzI1NiJ9.bm90LWpzb24.AAAA"] {
            #expect(throws: AccessTokens.Failure.malformed, "\(bad)") { try tokens.verify(bad, now: now) }
        }
    }
}
