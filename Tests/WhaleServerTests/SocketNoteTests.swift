import Foundation
import Testing
import WhaleLoad
import WhaleOT
import WhaleProtocol
@testable import WhaleServer

/// Notes over real sockets: concurrent editing converges, every ack is durable, both protocols.
@Suite(.serialized) struct SocketNoteTests {
    @Test func concurrentEditorsConvergeOnProtocol2() async throws {
        let harness = try await ServerHarness.start()
        let ada = try await harness.login(ServerHarness.ada)
        let bob = try await harness.login(ServerHarness.bob)
        let account = try #require(try await harness.accountIds(token: ada.token).first)
        let clients = [
            LiveNoteClient(
                url: harness.socketURL, token: ada.token, clientId: "ada", userId: ada.userId, resourceId: account,
                binaryFrames: true),
            LiveNoteClient(
                url: harness.socketURL, token: bob.token, clientId: "bob", userId: bob.userId, resourceId: account),
            LiveNoteClient(
                url: harness.socketURL, token: bob.token, clientId: "bob2", userId: bob.userId, resourceId: account),
        ]
        for client in clients { try await client.join() }
        var generator = SystemRandomNumberGenerator()
        for round in 0..<40 {
            for (index, client) in clients.enumerated() {
                let count = client.state.document.count
                let position = Int.random(in: 0...count, using: &generator)
                let deleting = round % 5 == 4 ? min(2, count - position) : 0
                client.edit(position: position, deleting: deleting, inserting: "\(index)é\(round)")
            }
            if round % 10 == 9 { try await Task.sleep(for: .milliseconds(5)) }
        }
        for client in clients { try await client.waitSynchronized() }
        let server = try #require(harness.server.note(account))
        for client in clients {
            try await client.wait(timeout: .seconds(10), for: "convergence") { $0.revision == server.revision }
            #expect(client.state.text == server.text, "\(client.clientId) diverged")
        }
        for client in clients { await client.disconnect() }
        await harness.stop()
    }

    @Test func originalProtocolNeedsNoTokenAndStaysSilentOnBadInput() async throws {
        let harness = try await ServerHarness.start()
        let socket = TestSocket(url: harness.socketURL, headers: ["ObjectId": "anything"])
        socket.send(#"{"messageId":"j","type":"resourceConnection","data":{"resourceId":"free-note"}}"#, binary: true)
        let conf = await socket.next { $0.messageId == "j" }
        guard case .resourceConnectionConf(let joined)? = conf?.message else {
            Issue.record("no conf: \(String(describing: conf))"); return
        }
        #expect(joined.revision == 0 && joined.initialState == "")
        for bad in [
            "{", #"{"messageId":"x","type":"nope","data":{}}"#,
            #"{"messageId":"x","type":"docChange","data":{"resourceId":"free-note","rev":0,"n":[5],"s":[""]}}"#,
        ] {
            socket.send(bad)
        }
        socket.send(
            #"{"messageId":"ok","type":"docChange","data":{"resourceId":"free-note","rev":0,"n":[0],"s":["hi"]}}"#)
        let ack = await socket.next { $0.messageId == "ok" }
        #expect(ack != nil, "the socket still works after bad input")
        // The original protocol has no error message: nothing but the ack arrived.
        #expect(await socket.next(timeout: .milliseconds(200)) == nil)
        #expect(harness.server.note("free-note")?.text == "hi")
        socket.close()
        await harness.stop()
    }

    @Test func serverShutdownClosesSocketsWithGoingAway() async throws {
        let harness = try await ServerHarness.start()
        let socket = TestSocket(url: harness.socketURL, headers: ["ObjectId": "x"])
        socket.send(#"{"messageId":"j","type":"resourceConnection","data":{"resourceId":"n"}}"#)
        _ = await socket.next { $0.messageId == "j" }
        await harness.stop()
        #expect(await socket.closeCode() == 1001)
    }
}

extension TestSocket.Received: Equatable {
    static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case (.message(let a), .message(let b)): a == b
        case (.undecodable(let a), .undecodable(let b)): a == b
        default: false
        }
    }
}
