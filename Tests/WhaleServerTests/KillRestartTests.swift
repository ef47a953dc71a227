import Foundation
import Testing
import WhaleLoad
import WhaleProtocol
import WhalesimTesting
#if canImport(Glibc)
    import Glibc
#endif

/// `kill -9` in the middle of live editing, then a restart on the same SQLite file: every op
/// that was acknowledged before the kill is still there, and the clients, reconnecting with
/// their revision (resync) and resending what was not acknowledged, converge.
@Suite(.serialized) struct KillRestartTests {
    static let binary = ExternalProcess.packageRoot.appendingPathComponent(".build/debug/whalesim")

    /// `whalesim serve` as a child process; its URL once it listens.
    final class Child: @unchecked Sendable {
        let process = Process()
        var base = ""
        init(database: String, port: Int) throws {
            process.executableURL = KillRestartTests.binary
            process.arguments = [
                "serve", "--port", String(port), "--database", database, "--fixtures", ServerHarness.seed.path,
                "--bcrypt-cost", "4", "--jwt-secret", ServerHarness.secret, "--log-level", "error",
                "--max-messages-per-second", "0",
            ]
            let out = Pipe()
            process.standardOutput = out
            process.standardError = FileHandle.nullDevice
            try process.run()
            var text = ""
            let deadline = Date().addingTimeInterval(60)
            while !text.contains("socket: ") {
                guard Date() < deadline, process.isRunning else { throw HarnessError("serve did not start: \(text)") }
                let data = out.fileHandleForReading.availableData
                if data.isEmpty { usleep(10_000) } else { text += String(decoding: data, as: UTF8.self) }
            }
            base = String(text.split(separator: "\n").first { $0.hasPrefix("http: ") }!.dropFirst(6))
        }
        func kill9() {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        func terminate() {
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
        }
    }

    @Test func noAcknowledgedOpIsLostAcrossKillNine() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.binary.path), "build first: swift build")
        let database = try ExternalProcess.temporaryDirectory("kill9").appendingPathComponent("notes.sqlite").path
        let first = try Child(database: database, port: 0)
        let port = Int(first.base.split(separator: ":").last!)!
        let harness = HTTPClientOnly(base: first.base)
        let ada = try await harness.login(ServerHarness.ada)
        let account = try #require(try await harness.accountIds(token: ada.token).first)
        let socketURL = first.base.replacingOccurrences(of: "http://", with: "ws://") + "/socket"

        let acked = AckedInserts()
        var clients: [LiveNoteClient] = []
        for index in 0..<3 {
            let client = LiveNoteClient(
                url: socketURL, token: ada.token, clientId: ClientID("k\(index)"), userId: ada.userId,
                resourceId: account
            ) { observation in
                if case .acknowledged(let opId, _) = observation { acked.add(opId) }
            }
            try await client.join()
            clients.append(client)
        }
        // Type, each edit a unique marker, until well past the point where some are acknowledged.
        var typed: [String: String] = [:]  // opId-prefix → marker
        for round in 0..<60 {
            for (index, client) in clients.enumerated() {
                let marker = "<\(index).\(round)>"
                client.edit(position: client.state.document.count, deleting: 0, inserting: marker)
                typed["\(index).\(round)"] = marker
            }
            try await Task.sleep(for: .milliseconds(2))
        }
        let ackedBeforeKill = acked.snapshot()
        let textsBefore = clients.map { $0.state }
        first.kill9()
        #expect(!ackedBeforeKill.isEmpty)

        let second = try Child(database: database, port: port)
        defer { second.terminate() }
        // The acknowledged state: every acknowledged op is in the restarted server's note.
        for client in clients { await client.disconnect() }
        for client in clients { try await client.join(timeout: .seconds(20)) }
        for client in clients { try await client.waitSynchronized(timeout: .seconds(20)) }
        // Every op is acknowledged now, so the server's note is final; each client catches up to it.
        let final = try await harness.graphQL(
            "query N($id: ID!) { note(accountID: $id) { content } }", variables: ["id": account], token: ada.token)
        let content = try #require((final.data?["note"] as? [String: Any])?["content"] as? String)
        for client in clients {
            try await client.wait(timeout: .seconds(20), for: "the final text") { $0.text == content }
        }
        let texts = clients.map(\.state.text)
        #expect(Set(texts).count == 1, "clients converged after the restart")
        // Every marker typed is there: acknowledged ones survived the kill, the rest were resent.
        for (_, marker) in typed.sorted(by: { $0.key < $1.key }) {
            #expect(texts[0].contains(marker), "lost \(marker)")
        }
        #expect(textsBefore.count == 3)
        let note = try await harness.graphQL(
            "query N($id: ID!) { note(accountID: $id) { content } }", variables: ["id": account], token: ada.token)
        #expect((note.data?["note"] as? [String: Any])?["content"] as? String == texts[0])
        for client in clients { await client.disconnect() }
    }
}

extension KillRestartTests {
    @Test func sigtermClosesSocketsWithGoingAwayAndExitsCleanly() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.binary.path), "build first: swift build")
        let database = try ExternalProcess.temporaryDirectory("sigterm").appendingPathComponent("s.sqlite").path
        let child = try Child(database: database, port: 0)
        let socket = TestSocket(
            url: child.base.replacingOccurrences(of: "http://", with: "ws://") + "/socket", headers: ["ObjectId": "x"])
        socket.send(#"{"messageId":"j","type":"resourceConnection","data":{"resourceId":"n"}}"#)
        #expect(await socket.next { $0.messageId == "j" } != nil)
        socket.send(#"{"messageId":"c","type":"docChange","data":{"resourceId":"n","rev":0,"n":[0],"s":["kept"]}}"#)
        #expect(await socket.next { $0.messageId == "c" } != nil)
        kill(child.process.processIdentifier, SIGTERM)
        #expect(await socket.closeCode() == 1001)
        child.process.waitUntilExit()
        #expect(child.process.terminationStatus == 0)
        // The acknowledged op is on disk.
        let again = try Child(database: database, port: 0)
        defer { again.terminate() }
        let reader = TestSocket(
            url: again.base.replacingOccurrences(of: "http://", with: "ws://") + "/socket", headers: ["ObjectId": "x"])
        reader.send(#"{"messageId":"j","type":"resourceConnection","data":{"resourceId":"n"}}"#)
        guard case .resourceConnectionConf(let conf)? = await reader.next(where: { $0.messageId == "j" })?.message
        else {
            Issue.record("no join after restart"); return
        }
        #expect(conf.initialState == "kept" && conf.revision == 1)
        reader.close()
    }
}

/// The acknowledged op ids, collected from the clients' callbacks.
final class AckedInserts: @unchecked Sendable {
    private let lock = NSLock()
    private var ids: [String] = []
    func add(_ id: String) { lock.withLock { ids.append(id) } }
    func snapshot() -> [String] { lock.withLock { ids } }
}
