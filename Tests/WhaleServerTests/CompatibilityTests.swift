import Foundation
import Testing
import WhaleProtocol
@testable import WhaleServer

/// `--compatibility`: the original protocol only, as the original server behaves, and `--fault`:
/// a catalog fault switched on in the live server (the load runner's tests need one).
@Suite(.serialized) struct CompatibilityTests {
    @Test func compatibilityModeIgnoresProtocol2AndClosesOnTheOriginalsReadLimit() async throws {
        let harness = try await ServerHarness.start { $0.compatibility = true }
        // ?protocol=2 without a token is not refused: the original never checks.
        let socket = TestSocket(url: harness.socketURL + "?protocol=2", headers: ["ObjectId": "anything"])
        socket.send(#"{"messageId":"j","type":"resourceConnection","data":{"resourceId":"n1","revision":0}}"#)
        guard case .resourceConnectionConf(let conf)? = await socket.next(where: { $0.messageId == "j" })?.message
        else {
            Issue.record("no join"); return
        }
        #expect(conf.initialState == "" && conf.missedOps == nil, "no resync in the original protocol")
        // Bad input: silence (no error type exists in the original).
        socket.send(#"{"messageId":"b","type":"docChange","data":{"resourceId":"n1","rev":7,"n":[0],"s":["x"]}}"#)
        socket.send(#"{"messageId":"ok","type":"docChange","data":{"resourceId":"n1","rev":0,"n":[0],"s":["x"]}}"#)
        let ack = await socket.next { $0.messageId == "ok" }
        guard case .docChangeReturnOps(_, _, let opId, let cursor)? = ack?.message else {
            Issue.record("no ack"); return
        }
        #expect(cursor == nil, "the original protocol carries no cursor")
        #expect(opId == nil)
        // A message over 512 bytes closes the socket, as the original's read limit does.
        socket.send(
            #"{"messageId":"big","type":"docChange","data":{"resourceId":"n1","rev":1,"n":[1,0],"s":["","\#(String(repeating: "y", count: 600))"]}}"#
        )
        #expect(await socket.closeCode() == 1009)
        #expect(harness.server.note("n1")?.text == "x")
        await harness.stop()
    }

    @Test func serverFaultIsLiveWhenSwitchedOn() async throws {
        // server-applies-resend-twice: a protocol-2 resend of an applied op is applied again.
        for faulty in [false, true] {
            let harness = try await ServerHarness.start { if faulty { $0.faults = [.serverAppliesResendTwice] } }
            let ada = try await harness.login(ServerHarness.ada)
            let account = try #require(try await harness.accountIds(token: ada.token).first)
            let v2 = TestSocket(
                url: harness.socketURL + "?protocol=2", headers: ["ObjectId": account, "Authorization": ada.token])
            v2.send(#"{"messageId":"j","type":"resourceConnection","data":{"resourceId":"\#(account)"}}"#)
            guard case .resourceConnectionConf(let conf)? = await v2.next(where: { $0.messageId == "j" })?.message
            else { Issue.record("no join"); return }
            let length = conf.initialState?.unicodeScalars.count ?? 0
            let change =
                #"{"messageId":"c1","type":"docChange","data":{"resourceId":"\#(account)","rev":\#(conf.revision),"n":[0\#(length > 0 ? ",\(length)" : "")],"s":["Z"\#(length > 0 ? ",\"\"" : "")],"opId":"t:1"}}"#
            v2.send(change)
            _ = await v2.next { $0.messageId == "c1" }
            v2.send(change.replacingOccurrences(of: "\"c1\"", with: "\"c2\""))
            _ = await v2.next { $0.messageId == "c2" }
            let text = try #require(harness.server.note(account)?.text)
            #expect(text.filter { $0 == "Z" }.count == (faulty ? 2 : 1), "faulty \(faulty): \(text)")
            let health = try await harness.get("/health")
            #expect(health.text.contains("server-applies-resend-twice") == faulty)
            v2.close()
            await harness.stop()
        }
    }
}
