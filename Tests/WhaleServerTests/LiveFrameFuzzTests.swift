import Foundation
import Testing
import WhaleLoad
import WhaleOT
import WhaleProtocol
import WhalesimTesting
@testable import WhaleServer

/// 10,000 random and mutated frames at a live server while two honest clients edit a note: the
/// server stays up and answers, the fuzzed documents are unchanged, the honest clients converge.
@Suite(.serialized) struct LiveFrameFuzzTests {
    static let seed: UInt64 = 0x5eed_f022

    /// Valid frames of every client message type, to mutate.
    static func templates(account: String, other: String) -> [String] {
        [
            #"{"messageId":"m1","type":"docChange","data":{"resourceId":"\#(account)","rev":0,"n":[0],"s":["abc"],"opId":"f:1"}}"#,
            #"{"messageId":"m2","type":"docChange","data":{"resourceId":"\#(account)","rev":3,"n":[2,-1,0,4],"s":["","","é",""]}}"#,
            #"{"messageId":"m3","type":"cursorUpdate","data":{"resourceId":"\#(account)","rev":0,"anchor":1,"head":2}}"#,
            #"{"messageId":"m4","type":"docChange","data":{"resourceId":"\#(other)","rev":0,"n":[0],"s":["zz"]}}"#,
            #"{"senderId":"x","messageId":"m5","type":"resourceUpdate","data":{"resourceId":"\#(account)","senderId":"y"}}"#,
        ]
    }

    /// One fuzz frame: a mutation of a template, or random bytes, decided by the seeded generator.
    static func frame(_ templates: [String], using generator: inout SplitMix64) -> [UInt8] {
        var bytes = Array(templates[Int(generator.next() % UInt64(templates.count))].utf8)
        switch generator.next() % 8 {
        case 0:
            return (0..<Int(generator.next() % 64)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        case 1:
            let cut = Int(generator.next() % UInt64(bytes.count))
            return Array(bytes[..<cut])
        case 2:
            for _ in 0..<1 + Int(generator.next() % 4) {
                bytes[Int(generator.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: generator.next())
            }
            return bytes
        case 3:
            let numbers = [
                "-1", "99999999999999999999", "1e400", "0.5", "null", "[]", "{}", "\"\"", "-9223372036854775808",
            ]
            let text = String(decoding: bytes, as: UTF8.self)
            let digits = text.ranges(of: /-?[0-9]+/)
            guard let range = digits.randomElement(using: &generator) else { return bytes }
            return Array(
                text.replacingCharacters(in: range, with: numbers[Int(generator.next() % UInt64(numbers.count))]).utf8)
        case 4:
            let start = Int(generator.next() % UInt64(bytes.count))
            let end = min(bytes.count, start + Int(generator.next() % 16))
            bytes.insert(contentsOf: bytes[start..<end], at: Int(generator.next() % UInt64(bytes.count)))
            return bytes
        case 5:
            return Array(
                String(decoding: bytes, as: UTF8.self).replacingOccurrences(
                    of: "docChange", with: ["docchange", "resourceConnection2", "", "error"][Int(generator.next() % 4)]
                ).utf8)
        case 6:
            return Array("[".utf8) + bytes + Array("]".utf8)
        default:
            let nested = Int(generator.next() % 2000)
            return Array((String(repeating: "[", count: nested) + String(repeating: "]", count: nested)).utf8)
        }
    }

    @Test func tenThousandHostileFramesChangeNothing() async throws {
        let harness = try await ServerHarness.start {
            $0.maxMessagesPerSecond = 0; $0.maxMessageBytes = 16 * 1024
        }
        let ada = try await harness.login(ServerHarness.ada)
        let accounts = try await harness.accountIds(token: ada.token)
        try #require(accounts.count >= 2)
        let (fuzzed, honest) = (accounts[0], accounts[1])
        // The fuzzed note gets some text first, through an honest client.
        let writer = LiveNoteClient(
            url: harness.socketURL, token: ada.token, clientId: "w", userId: ada.userId, resourceId: fuzzed)
        try await writer.join()
        writer.edit(position: 0, deleting: 0, inserting: "the fuzzed note")
        try await writer.waitSynchronized()
        await writer.disconnect()
        let before = try #require(harness.server.note(fuzzed))

        let editors = [
            LiveNoteClient(
                url: harness.socketURL, token: ada.token, clientId: "e1", userId: ada.userId, resourceId: honest),
            LiveNoteClient(
                url: harness.socketURL, token: ada.token, clientId: "e2", userId: ada.userId, resourceId: honest),
        ]
        for editor in editors { try await editor.join() }

        // Fuzzers: v2 and original, never joined to the fuzzed note (a join would let a valid
        // mutation apply, which is not a refusal); joins are filtered out before sending.
        let v2 = TestSocket(
            url: harness.socketURL + "?protocol=2",
            headers: ["ObjectId": ada.organizationId, "Authorization": ada.token])
        let v1 = TestSocket(url: harness.socketURL, headers: ["ObjectId": ada.organizationId])
        var generator = SplitMix64(seed: Self.seed)
        let templates = Self.templates(account: fuzzed, other: honest)
        var sent = 0
        for index in 0..<10_000 {
            let bytes = Self.frame(templates, using: &generator)
            if let decoded = try? WireCodec.decodeClient(bytes), case .resourceConnection = decoded.message { continue }
            let text = String(decoding: bytes, as: UTF8.self)
            (index % 2 == 0 ? v2 : v1).send(text, binary: index % 3 == 0)
            sent += 1
            if index % 500 == 0 {
                for (n, editor) in editors.enumerated() {
                    editor.edit(position: 0, deleting: 0, inserting: "\(n):\(index) ")
                }
                try await Task.sleep(for: .milliseconds(1))
            }
        }
        #expect(sent > 9_000, "replay: seed \(Self.seed)")
        // The server answers, the honest note converged, the fuzzed note is unchanged.
        v2.send(#"{"messageId":"ping","type":"resourceConnection","data":{"resourceId":"\#(honest)"}}"#)
        #expect(
            await v2.next(timeout: .seconds(30)) { $0.messageId == "ping" } != nil,
            "the server still answers (seed \(Self.seed))")
        for editor in editors { try await editor.waitSynchronized(timeout: .seconds(30)) }
        let server = try #require(harness.server.note(honest))
        for editor in editors {
            try await editor.wait(timeout: .seconds(10), for: "convergence") { $0.revision == server.revision }
            #expect(editor.state.text == server.text)
        }
        let after = try #require(harness.server.note(fuzzed))
        #expect(
            after.text == before.text && after.revision == before.revision,
            "a refused frame changed the fuzzed note (seed \(Self.seed))")
        let health = try await harness.get("/health")
        #expect(health.status == 200)
        v1.close(); v2.close()
        for editor in editors { await editor.disconnect() }
        await harness.stop()
    }
}
