import Foundation
import Testing
import WhaleOT
import WhaleProtocol
@testable import WhaleServer

/// `?clientId=` (protocol 2): a well-formed, free id is the one the server uses (so remote
/// cursors name it); a taken or malformed one gets a server-chosen id; the original protocol
/// ignores it.
@Suite(.serialized) struct ClientIdTests {
    @Test func aProposedIdIsUsedWhenWellFormedAndFree() async throws {
        let harness = try await ServerHarness.start()
        let ada = try await harness.login(ServerHarness.ada)
        let account = try #require(try await harness.accountIds(token: ada.token).first)
        let headers = ["ObjectId": account, "Authorization": ada.token]
        func join(_ socket: TestSocket, _ id: String) async -> Bool {
            socket.send(ClientEnvelope(messageId: id, message: .resourceConnection(resourceId: account, revision: nil)))
            return await socket.next { $0.messageId == id } != nil
        }
        let watcher = TestSocket(url: harness.socketURL + "?protocol=2&clientId=watcher", headers: headers)
        #expect(await join(watcher, "w"))
        // Proposes a free id, then a second socket proposes the same one, a third a malformed one.
        let first = TestSocket(url: harness.socketURL + "?protocol=2&clientId=c001.2", headers: headers)
        #expect(await join(first, "a"))
        let second = TestSocket(url: harness.socketURL + "?protocol=2&clientId=c001.2", headers: headers)
        #expect(await join(second, "b"))
        let third = TestSocket(url: harness.socketURL + "?protocol=2&clientId=bad%20id%2F", headers: headers)
        #expect(await join(third, "c"))
        var seen: [String] = []
        for (i, s) in [first, second, third].enumerated() {
            s.send(
                ClientEnvelope(
                    messageId: "cur\(i)",
                    message: .cursorUpdate(
                        resourceId: account, rev: harness.server.note(account)?.revision ?? 0,
                        selection: Selection(cursor: 0))))
            let cursor = await watcher.next {
                if case .cursorUpdate(let c) = $0.message { return !seen.contains(c.clientId.rawValue) }
                return false
            }
            if case .cursorUpdate(let c)? = cursor?.message { seen.append(c.clientId.rawValue) }
        }
        #expect(seen.count == 3)
        #expect(seen.first == "c001.2", "the free, well-formed id is used: \(seen)")
        #expect(seen[1] != "c001.2" && seen[2] != "bad id/", "a taken or malformed id is replaced: \(seen)")
        #expect(Set(seen).count == 3)
        for s in [watcher, first, second, third] { s.close() }
        await harness.stop()
    }
}
